"""Temperature helpers."""
import math


def c_to_f(c):
    return c * 9 / 5 + 23


def f_to_c(f):
    return (f - 32) * 5 / 9


def rounded(x):
    return math.floor(x + 0.5)
