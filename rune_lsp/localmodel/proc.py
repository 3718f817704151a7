"""A child process whose output lines are read while `Cancel` is watched.

`subprocess.run` cannot be cancelled and a blocking `readline` cannot watch anything, so a
reader thread feeds a queue and the caller's thread polls it: cancelling ends the child within
a fraction of a second, even in the middle of a quiet compile step. The child leads its own
process group, and the whole group is ended: what it spawned (cmake's ninja and compilers, a
wrapper script's llama-server) goes with it rather than holding its output pipe open.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TextIO

from rune_lsp.localmodel.progress import Cancel, ProvisionCancelled
from rune_lsp.text_clip import tail_lines

_POLL = 0.2


def run_watched(
    command: Sequence[str],
    *,
    cancel: Cancel,
    log: TextIO,
    on_line: Callable[[str], None] | None = None,
    on_tick: Callable[[], None] | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> int:
    """Run `command` to its exit status, every output line into `log` (and `on_line`);
    `on_tick` runs about five times a second. Raises ProvisionCancelled once `cancel` is set,
    subprocess.TimeoutExpired after `timeout` seconds (the child is ended either way)."""
    log.write(f"$ {' '.join(command)}\n")
    log.flush()
    try:
        child = subprocess.Popen(
            list(command),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
            cwd=cwd,
            env=dict(env) if env is not None else None,
            start_new_session=True,
        )
    except OSError as exc:  # not found, not executable
        log.write(f"could not start: {exc}\n")
        return 127
    lines: queue.Queue[str | None] = queue.Queue()
    reader = threading.Thread(target=_pump, args=(child, lines), daemon=True)
    reader.start()
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        while True:
            if cancel.is_set():
                raise ProvisionCancelled(f"cancelled while running {command[0]}")
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(list(command), timeout or 0)
            try:
                line = lines.get(timeout=_POLL)
            except queue.Empty:
                if on_tick is not None:
                    on_tick()
                continue
            if line is None:
                break
            log.write(line)
            if on_line is not None:
                on_line(line.rstrip("\n"))
        return child.wait()
    finally:
        if child.poll() is None:
            _end(child)
        reader.join(timeout=5)
        log.flush()


def _pump(child: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
    assert child.stdout is not None
    for line in child.stdout:
        lines.put(line)
    lines.put(None)


def _end(child: subprocess.Popen[str]) -> None:
    _signal_group(child, signal.SIGTERM)
    try:
        child.wait(timeout=5)
    except subprocess.TimeoutExpired:
        _signal_group(child, signal.SIGKILL)
        child.wait()
    _signal_group(child, signal.SIGKILL)  # what it spawned and left behind


def _signal_group(child: subprocess.Popen[str], number: signal.Signals) -> None:
    with contextlib.suppress(OSError):  # the group is gone already
        os.killpg(child.pid, number)


def tail(path: Path, lines: int = 8) -> str:
    """The last lines of a log, for an error message."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return tail_lines(text, lines)


def environ_with(**changes: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(changes)
    return env
