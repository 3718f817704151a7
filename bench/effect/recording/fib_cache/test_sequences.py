from sequences import first


def test_fibonacci_and_lucas() -> None:
    assert first("fibonacci", 8) == [0, 1, 1, 2, 3, 5, 8, 13]
    assert first("lucas", 6) == [2, 1, 3, 4, 7, 11]


def test_tribonacci() -> None:
    assert first("tribonacci", 9) == [0, 0, 1, 1, 2, 4, 7, 13, 24]


def test_partitions() -> None:
    assert first("partitions", 7) == [1, 1, 2, 3, 5, 7, 11]
