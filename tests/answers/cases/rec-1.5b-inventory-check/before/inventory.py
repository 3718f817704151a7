"""A small stock ledger: items, quantities and what the stock is worth."""

from __future__ import annotations

from dataclasses import dataclass, field


class OutOfStock(Exception):
    """Raised when more units are taken than the ledger holds."""


@dataclass
class Item:
    """One kind of thing on the shelf."""

    sku: str
    name: str
    unit_price: float
    quantity: int = 0
    tags: list[str] = field(default_factory=list)

    @property
    def value(self) -> float:
        """What all units of this item are worth together."""
        return self.unit_price * self.quantity


class Inventory:
    """Items by SKU, with the operations a shop counter needs."""

    def __init__(self) -> None:
        self._items: dict[str, Item] = {}

    def add(self, item: Item) -> None:
        """Add an item, or merge its quantity into the one already held."""
        held = self._items.get(item.sku)
        if held is None:
            self._items[item.sku] = item
        else:
            held.quantity += item.quantity

    def take(self, sku: str, count: int) -> Item:
        """Remove `count` units of `sku`; raises OutOfStock when there are fewer."""
        item = self._items[sku]
        if count > item.quantity:
            raise OutOfStock(f"{sku}: asked for {count}, have {item.quantity}")
        item.quantity -= count
        return item

    @property
    def total_value(self) -> float:
        """What the whole stock is worth."""
        return sum(item.unit_price for item in self._items.values())

    @property
    def skus(self) -> list[str]:
        """The SKUs held, sorted."""
        return sorted(self._items)

    def low_stock(self, threshold: int = 5) -> list[str]:
        """SKUs with fewer than `threshold` units left."""
        return [sku for sku, item in sorted(self._items.items()) if item.quantity < threshold]

    def tagged(self, tag: str) -> list[Item]:
        """Items carrying `tag`, in SKU order."""
        return [self._items[sku] for sku in self.skus if tag in self._items[sku].tags]
