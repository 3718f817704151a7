def helper(x):
    return x * 2


def main(values):
    out = []
    for v in values:
        out.append(helper(v))
    return out
