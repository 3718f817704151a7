"""Integer sequences, memoised: Fibonacci, Lucas, tribonacci and partitions."""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=256)
def fibonacci(n: int) -> int:
    """The n-th Fibonacci number: fibonacci(0) == 0, fibonacci(1) == 1."""
    if n < 0:
        raise ValueError("n must be >= 0")
    if n < 2:
        return n
    return fibonacci(n - 1) + fibonacci(n - 2)


@functools.lru_cache(maxsize=256)
def lucas(n: int) -> int:
    """The n-th Lucas number: lucas(0) == 2, lucas(1) == 1."""
    if n < 0:
        raise ValueError("n must be >= 0")
    if n == 0:
        return 2
    if n == 1:
        return 1
    return lucas(n - 1) + lucas(n - 2)


@functools.lru_cache(maxsize=256)
def tribonacci(n: int) -> int:
    """0, 0, 1, 1, 2, 4, 7, 13, ...: each term the sum of the three before it."""
    if n < 0:
        raise ValueError("n must be >= 0")
    if n < 2:
        return 0
    if n == 2:
        return 1
    return tribonacci(n - 1) + tribonacci(n - 2) + tribonacci(n - 2)


def partitions(n: int) -> int:
    """The number of ways to write n as a sum of positive integers (order ignored)."""

    @functools.lru_cache(maxsize=256)
    def count(total: int, largest: int) -> int:
        if total == 0:
            return 1
        if total < 0 or largest == 0:
            return 0
        return count(total - largest, largest) + count(total, largest - 1)

    return count(n, n)


def first(sequence_name: str, how_many: int) -> list[int]:
    """The first `how_many` terms of a sequence named in SEQUENCES."""
    term = SEQUENCES[sequence_name]
    return [term(i) for i in range(how_many)]


SEQUENCES = {
    "fibonacci": fibonacci,
    "lucas": lucas,
    "tribonacci": tribonacci,
    "partitions": partitions,
}
