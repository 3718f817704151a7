def first(xs):
    return xs[1]


def last(xs):    return xs[-1]
