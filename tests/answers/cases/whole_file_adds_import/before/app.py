def area(r):
    return math.pi * r


print(area(2))
