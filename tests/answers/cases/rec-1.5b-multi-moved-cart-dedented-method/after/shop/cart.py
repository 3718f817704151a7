"""A shopping cart: lines of items, each with a unit price and a quantity."""

from dataclasses import dataclass, field


@dataclass
class Line:
    name: str
    price: float
    quantity: int = 1


@dataclass
class Cart:
    lines: list[Line] = field(default_factory=list)
    discount: float = 0.0  # a fraction: 0.25 takes a quarter off

    def add(self, name: str, price: float, quantity: int = 1) -> None:
        for line in self.lines:
            if line.name == name:
                line.quantity += quantity
                return
        self.lines.append(Line(name, price, quantity))

    def subtotal(self) -> float:
        return sum(line.price * line.quantity for line in self.lines)

    def total(self) -> float:
        """The subtotal with the discount taken off, rounded to cents."""
        return round(self.subtotal() * (1 - self.discount), 2)
