import math


class Stack:
    def __init__(self):
        self.items = []

    @property
    def top(self):
        return self.items[0]

    def pop(self):
        return self.items.pop(0)


def add(a, b):
    return a + b


def area(r):
    return math.pi * r
