def positive_total(xs):
    total = 0
    for x in xs:
        if x > 0:
            total += x
    return total
