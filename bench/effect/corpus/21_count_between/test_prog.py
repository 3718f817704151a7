from prog import count_between


def test_count_between():
    assert count_between([1, 2, 3, 4, 5], 2, 4) == 3
    assert count_between([10], 10, 10) == 1
