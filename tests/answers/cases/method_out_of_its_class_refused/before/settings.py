from sentinels import UNSET


class Settings:
    def __init__(self, defaults=None):
        self.defaults = defaults

    def lookup(self, name):
        if self.defaults is not None:
            return self.defaults.get(name, UNSET)
        return None
