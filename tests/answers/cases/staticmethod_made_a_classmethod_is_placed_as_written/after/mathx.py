from functools import lru_cache


class Math:
    @classmethod
    @lru_cache(maxsize=None)
    def fib(cls, n):
        if n < 2:
            return n
        return cls.fib(n - 1) + cls.fib(n - 2)
