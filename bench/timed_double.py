"""The tests' model double, with a clock on the time it spends answering.

The loop figures subtract the model's time from the wall time of a run; with a zero-latency
double that is the double's own HTTP handling (parse the request, read the body, build and
write the answer),
which runs in this process and is no cost of rune's. Time the server spends in httpx, JSON and
its own logic stays on rune's side of the ledger.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from tests.doubles import model_double
from tests.doubles.model_double import ModelDouble

_lock = threading.Lock()
_spent = 0.0
_installed = False


def _install() -> None:
    """Wrap the double's request handling once; the double itself stays untouched.

    The clock starts when the double has read a request line (`parse_request`, which then
    reads the headers) and stops when its answer is written: the model server's whole work on
    a request, its own HTTP parsing included, but never the wait for the next request on a
    kept-alive connection.
    """
    global _installed
    if _installed:
        return
    handler = model_double._Handler
    parse: Callable[[Any], bool] = handler.parse_request
    original: Callable[[Any], None] = handler._handle

    def parse_timed(self: Any) -> bool:
        self._bench_started = time.perf_counter()
        return parse(self)

    def timed(self: Any) -> None:
        global _spent
        started = getattr(self, "_bench_started", None) or time.perf_counter()
        try:
            original(self)
        finally:
            elapsed = time.perf_counter() - started
            self._bench_started = None
            with _lock:
                _spent += elapsed

    handler.parse_request = parse_timed  # type: ignore[method-assign]
    handler._handle = timed  # type: ignore[method-assign]
    _installed = True


def double_seconds() -> float:
    """Seconds every double in this process has spent answering requests, so far."""
    with _lock:
        return _spent


def timed_double(**kwargs: Any) -> ModelDouble:
    _install()
    return ModelDouble(**kwargs)
