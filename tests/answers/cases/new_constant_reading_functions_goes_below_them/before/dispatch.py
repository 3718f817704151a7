import sys


def handle_add(a, b):
    return a + b


def handle_sub(a, b):
    return a - b


def dispatch(op, a, b):
    if op == "add":
        return handle_add(a, b)
    return handle_add(a, b)
