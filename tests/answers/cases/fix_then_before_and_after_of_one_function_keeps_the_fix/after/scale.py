def helper(x):
    return x * 3


def scale(values):
    out = []
    for v in values:
        out.append(helper(v))
    return out
