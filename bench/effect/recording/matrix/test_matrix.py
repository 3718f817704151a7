import pytest
from matrix import Matrix


def test_product() -> None:
    a = Matrix([[1, 2], [3, 4]])
    b = Matrix([[5, 6], [7, 8]])
    assert a @ b == Matrix([[19, 22], [43, 50]])


def test_product_of_rectangles() -> None:
    a = Matrix([[1, 2, 3]])
    b = Matrix([[1], [2], [3]])
    assert a @ b == Matrix([[14]])
    assert (b @ a).shape == (3, 3)


def test_identity_add_transpose() -> None:
    a = Matrix([[1, 2], [3, 4]])
    assert a @ Matrix.identity(2) == a
    assert a + a == Matrix([[2, 4], [6, 8]])
    assert a.transpose() == Matrix([[1, 3], [2, 4]])
    with pytest.raises(ValueError):
        Matrix([[1, 2]]) @ Matrix([[1, 2]])
