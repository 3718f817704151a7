from prog import power


def test_power():
    assert power(2, 10) == 1024
    assert power(5, 0) == 1
