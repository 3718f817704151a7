from prog import first_negative


def test_first_negative():
    assert first_negative([4, 2, -1, -3]) == 2
    assert first_negative([1, 2]) == -1
    assert first_negative([]) == -1
