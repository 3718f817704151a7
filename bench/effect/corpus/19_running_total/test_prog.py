from prog import running_total


def test_running_total():
    assert running_total([1, 2, 3]) == [1, 3, 6]
    assert running_total([]) == []
