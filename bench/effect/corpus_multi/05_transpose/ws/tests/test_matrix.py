from grid.matrix import scale, transpose


def test_transpose_of_a_wide_matrix():
    assert transpose([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]


def test_scale():
    assert scale([[1, 2]], 3) == [[3, 6]]
