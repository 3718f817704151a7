from prog import chunks


def test_chunks():
    assert chunks([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]
    assert chunks([1, 2, 3], 3) == [[1, 2, 3]]
