from prog import cart_total


def test_cart_total():
    assert cart_total({"apple": 3, "pear": 1}, {"apple": 2, "pear": 5}) == 11
    assert cart_total({}, {"apple": 2}) == 0
