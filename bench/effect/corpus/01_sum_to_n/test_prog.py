from prog import sum_to_n


def test_sum_to_n():
    assert sum_to_n(0) == 0
    assert sum_to_n(1) == 1
    assert sum_to_n(4) == 10
