def add(
    a,
    b,
):
    return a + b


VALUE = add(1, 2)
