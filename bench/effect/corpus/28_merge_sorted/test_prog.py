from prog import merge_sorted


def test_merge_sorted():
    assert merge_sorted([1, 4, 9], [2, 3]) == [1, 2, 3, 4, 9]
    assert merge_sorted([1], [2, 5, 8]) == [1, 2, 5, 8]
