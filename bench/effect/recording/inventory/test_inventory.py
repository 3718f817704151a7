import pytest
from inventory import Inventory, Item, OutOfStock


def make() -> Inventory:
    stock = Inventory()
    stock.add(Item("A1", "bolt", 0.5, 100, ["metal"]))
    stock.add(Item("B2", "glue", 3.0, 4))
    stock.add(Item("C3", "nut", 0.25, 40, ["metal"]))
    return stock


def test_total_value_counts_every_unit() -> None:
    assert make().total_value == pytest.approx(50.0 + 12.0 + 10.0)


def test_take_and_low_stock() -> None:
    stock = make()
    stock.take("C3", 38)
    assert stock.low_stock() == ["B2", "C3"]
    with pytest.raises(OutOfStock):
        stock.take("B2", 5)


def test_add_merges_and_tags() -> None:
    stock = make()
    stock.add(Item("A1", "bolt", 0.5, 10))
    assert [i.sku for i in stock.tagged("metal")] == ["A1", "C3"]
    assert stock.tagged("metal")[0].quantity == 110
