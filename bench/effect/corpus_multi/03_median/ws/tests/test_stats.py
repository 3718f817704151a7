from mathkit.stats import mean, median


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5


def test_median_of_an_odd_count():
    assert median([3, 1, 2]) == 2


def test_median_of_an_even_count():
    assert median([4, 1, 3, 2]) == 2.5
