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

    @property
    def amount(self) -> str | None:
        """`458/1117 MB` or `120/208 steps`, when the total is known."""
        if self.done is None or not self.total:
            return None
        if self.unit == "bytes":
            return f"{self.done / 1e6:.0f}/{self.total / 1e6:.0f} MB"
        return f"{self.done}/{self.total} steps"

    def describe(self) -> str:
        """One line without a bar, for a log or an editor's progress message."""
        amount = self.amount
        return f"{self.message} · {amount} ({self.percent}%)" if amount else self.message


Progress = Callable[[Step], None]


def no_progress(step: Step) -> None:
    """For callers that show nothing."""


class Cancel(threading.Event):
    """Set it to stop provisioning: the current child process is ended, nothing half-made kept."""


class ProvisionCancelled(Exception):
    """Provisioning stopped because its `Cancel` was set."""
