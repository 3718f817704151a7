class Counter:
    """Counts how many times increment() was called."""

    def __init__(self):
        self.count = 0

    def increment(self):
        self.count += 1
        return self.count
