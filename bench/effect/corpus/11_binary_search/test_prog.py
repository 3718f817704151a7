from prog import binary_search


def test_binary_search():
    items = [1, 3, 5, 7, 9]
    assert [binary_search(items, x) for x in items] == [0, 1, 2, 3, 4]
    assert binary_search(items, 4) == -1
    assert binary_search([], 1) == -1
