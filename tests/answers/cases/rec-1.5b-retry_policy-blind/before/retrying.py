"""Retry a flaky call with exponential backoff, as a decorator.

    @retry(attempts=4, base_delay=0.1)
    def fetch():
        ...

The sleeping function is injectable so tests (and callers with their own clocks) need not wait.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class GaveUp(Exception):
    """Every attempt failed; `__cause__` is the last error."""


def delays(attempts: int, base_delay: float, factor: float = 2.0, cap: float = 30.0) -> list[float]:
    """The waits between attempts: base, base*factor, ..., each at most `cap`."""
    return [min(base_delay * factor**i, cap) for i in range(attempts - 1)]


def retry(
    attempts: int = 3,
    base_delay: float = 0.5,
    retry_on: tuple[type[BaseException], ...] = (OSError,),
    sleep: Callable[[float], None] = time.sleep,
) -> Callable[[F], F]:
    """Call the decorated function up to `attempts` times while it raises `retry_on`."""
    if attempts < 1:
        raise ValueError("attempts must be >= 1")

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            waits = delays(attempts, base_delay)
            for attempt in range(attempts):
                try:
                    return func(*args, **kwargs)
                except retry_on as error:
                    if attempt == attempts:
                        raise GaveUp(f"{func.__name__} failed {attempts} times") from error
                    sleep(waits[attempt])
            raise AssertionError("unreachable")

        wrapper.attempts = attempts  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


class Client:
    """A client whose `fetch` fails a set number of times before it answers."""

    def __init__(self, failures: int, slept: list[float]) -> None:
        self.failures = failures
        self.calls = 0
        self.slept = slept

    def fetch(self, key: str) -> str:
        @retry(attempts=4, base_delay=0.1, sleep=self.slept.append)
        def once() -> str:
            self.calls += 1
            if self.calls <= self.failures:
                raise ConnectionError("flaky")
            return key.upper()

        return once()
