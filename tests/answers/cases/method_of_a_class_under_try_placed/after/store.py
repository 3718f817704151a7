try:
    from fastcache import Cache
except ImportError:

    class Cache:
        def __init__(self):
            self.items = {}

        def get(self, key, default=None):
            return self.items.get(key, default)
