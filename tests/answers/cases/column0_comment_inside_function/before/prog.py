def scale(values, factor):
    out = []
    for v in values:
# keep the order of values
        out.append(v + factor)
    return out


RESULT = scale([1, 2], 3)
