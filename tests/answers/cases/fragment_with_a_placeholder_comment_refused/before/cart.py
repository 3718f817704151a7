def total(items):
    result = 0
    for item in items:
        result += item.price
    discount = 0.1
    return result - discount
