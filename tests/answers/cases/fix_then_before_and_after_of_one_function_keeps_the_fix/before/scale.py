def helper(x):
    return x * 2


def scale(values):
    out = []
    for v in values:
        out.append(v * 3)
    return out
