def mean(values):
    total = 0
    for v in values:
        total += v
    count = len(values)
    return total / count
