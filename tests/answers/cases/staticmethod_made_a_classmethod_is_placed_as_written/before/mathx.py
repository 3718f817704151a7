from functools import lru_cache


class Math:
    @staticmethod
    @lru_cache(maxsize=None)
    def fib(n):
        if n < 2:
            return 1
        return Math.fib(n - 1) + Math.fib(n - 2)
