from prog import rotate_right


def test_rotate_right():
    assert rotate_right([1, 2, 3, 4], 1) == [4, 1, 2, 3]
    assert rotate_right([1, 2, 3], 4) == [3, 1, 2]
    assert rotate_right([1, 2, 3], 3) == [1, 2, 3]
