import math


def area(r):
    return math.pi * r * r


print(area(2))
