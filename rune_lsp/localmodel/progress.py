"""What a long provisioning step reports, and how it is cancelled.

Provisioning runs in a worker thread (it waits on pip, cmake and the model server), so both are
thread-safe: `Progress` is a plain callable the caller adapts (a terminal bar, LSP work-done
progress), `Cancel` a `threading.Event` that every wait checks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Stage = Literal["build", "download", "verify", "start"]
Unit = Literal["bytes", "steps"]


@dataclass(frozen=True)
class Step:
    """One report: `done` of `total` `unit`s of `stage`, when they are known."""

    stage: Stage
    message: str
    done: int | None = None
    total: int | None = None
    unit: Unit | None = None

    @property
    def percent(self) -> int | None:
        if self.done is None or not self.total:
            return None
        return max(0, min(100, self.done * 100 // self.total))


Progress = Callable[[Step], None]


def no_progress(step: Step) -> None:
    """For callers that show nothing."""


class Cancel(threading.Event):
    """Set it to stop provisioning: the current child process is ended, nothing half-made kept."""


class ProvisionCancelled(Exception):
    """Provisioning stopped because its `Cancel` was set."""
