"""The tests' model double, with a clock on the time it spends answering.

The loop figures subtract the model's time from the wall time of a run; with a zero-latency
double that is the double's own HTTP handling (read the body, build and write the answer),
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
    """Wrap the double's per-request handler once; the double itself stays untouched."""
    global _installed
    if _installed:
        return
    handler = model_double._Handler
    original: Callable[[Any], None] = handler._handle

    def timed(self: Any) -> None:
        global _spent
        started = time.perf_counter()
        try:
            original(self)
        finally:
            elapsed = time.perf_counter() - started
            with _lock:
                _spent += elapsed

    handler._handle = timed  # type: ignore[method-assign]
    _installed = True


def double_seconds() -> float:
    """Seconds every double in this process has spent answering requests, so far."""
    with _lock:
        return _spent


def timed_double(**kwargs: Any) -> ModelDouble:
    _install()
    return ModelDouble(**kwargs)
