def process(data):
    result = []
    for item in data:
        if item is None:
            continue
        result.append(item * 2)
    total = sum(result)
    return total
