def running_total(values):
    """Return the cumulative sums: [1, 2, 3] gives [1, 3, 6]."""
    totals = []
    total = 0
    for value in values:
        totals.append(total)
        total += value
    return totals
