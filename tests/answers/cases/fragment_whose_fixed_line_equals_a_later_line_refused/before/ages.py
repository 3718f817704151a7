def is_adult(age):
    if age is None:
        return False
    return age > 18


def is_valid(age):
    return age >= 18
