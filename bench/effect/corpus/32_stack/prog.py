class Stack:
    """A last-in, first-out stack."""

    def __init__(self):
        self.items = []

    def push(self, item):
        self.items.append(item)

    def pop(self):
        """Remove and return the most recently pushed item."""
        return self.items.pop(0)
