"""Functions attached to classes at import time."""


def describe(self):
    return f"<{self.name}>"


def attach(cls):
    cls.describe = describe
    return cls
