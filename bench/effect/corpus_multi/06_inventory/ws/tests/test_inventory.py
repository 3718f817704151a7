import pytest

from store.inventory import Inventory, OutOfStock


def test_remove_some():
    stock = Inventory()
    stock.add("apple", 3)
    stock.remove("apple", 2)
    assert stock.items == {"apple": 1}


def test_remove_all_forgets_the_item():
    stock = Inventory()
    stock.add("apple", 2)
    stock.remove("apple", 2)
    assert "apple" not in stock


def test_remove_too_many():
    with pytest.raises(OutOfStock):
        Inventory().remove("pear")
