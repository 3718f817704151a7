def first(xs):
    return xs[0]


def last(xs):    return xs[-1]
