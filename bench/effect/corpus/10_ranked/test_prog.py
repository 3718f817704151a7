from prog import ranked


def test_ranked():
    scores = [3, 7, 5]
    assert ranked(scores) == [7, 5, 3]
    assert scores == [3, 7, 5]
