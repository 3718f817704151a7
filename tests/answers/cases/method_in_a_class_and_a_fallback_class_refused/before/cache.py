class MemoryCache:
    def get(self, key):
        return self.items.get(key)


try:
    from diskcache import DiskCache
except ImportError:

    class DiskCache:
        def get(self, key):
            return None
