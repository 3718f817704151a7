"""Stock counts per item."""


class OutOfStock(Exception):
    pass


class Inventory:
    def __init__(self) -> None:
        self.items: dict[str, int] = {}

    def add(self, name: str, count: int = 1) -> None:
        self.items[name] = self.items.get(name, 0) + count

    def remove(self, name: str, count: int = 1) -> None:
        """Take `count` away; an item whose count reaches zero is gone."""
        have = self.items.get(name, 0)
        if have < count:
            raise OutOfStock(name)
        self.items[name] = have - count
        if self.items[name] < 0:
            del self.items[name]

    def __contains__(self, name: str) -> bool:
        return name in self.items
