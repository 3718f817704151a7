import sys


def handle_add(a, b):
    return a + b


def handle_sub(a, b):
    return a - b


HANDLERS = {"add": handle_add, "sub": handle_sub}


def dispatch(op, a, b):
    return HANDLERS[op](a, b)
