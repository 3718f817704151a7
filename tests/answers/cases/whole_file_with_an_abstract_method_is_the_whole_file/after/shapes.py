from abc import ABC, abstractmethod


class Shape(ABC):
    @abstractmethod
    def area(self):
        """The area."""

    def describe(self):
        return f"area {self.area()}"


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side ** 2


if __name__ == "__main__":
    print(Square(3).describe())
