from shop.cart import Cart


def test_total_without_discount():
    cart = Cart()
    cart.add("pen", 1.5, 2)
    cart.add("pad", 4.0)
    assert cart.total() == 7.0


def test_total_takes_the_discount_off():
    cart = Cart(discount=0.25)
    cart.add("book", 20.0)
    assert cart.total() == 15.0
