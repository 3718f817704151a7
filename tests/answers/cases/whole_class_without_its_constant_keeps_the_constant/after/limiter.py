import time


class Limiter:
    WINDOW = 60

    def __init__(self, limit):
        self.limit = limit
        self.calls = []

    def allow(self):
        now = time.monotonic()
        self.calls = [t for t in self.calls if now - t < self.WINDOW]
        if len(self.calls) >= self.limit:
            return False
        self.calls.append(now)
        return True
