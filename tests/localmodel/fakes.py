"""Fakes for the local provider's tests: a llama-server binary (or a wrapper script that spawns
one), a model on disk, a plan."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from rune_lsp.localmodel.processes import alive
from rune_lsp.localmodel.provision import LocalPlan
from rune_lsp.modelfetch import CATALOGUE, model_path, write_stamp

FAKE_SERVER = Path(__file__).with_name("fake_llama_server.py")


def fake_binary(directory: Path, name: str = "llama-server", *, spawn: bool = False) -> Path:
    """An executable that runs the fake server with this interpreter: a wrapper script that
    execs it (the server then has the script's pid), or with `spawn` one that runs it as its
    child and waits (the pid rune started is the script's, the server another)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    run = "" if spawn else "exec "
    path.write_text(f'#!/bin/sh\n{run}"{sys.executable}" "{FAKE_SERVER}" "$@"\n', encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def fake_model(cache: Path, name: str = "qwen-0.5b") -> Path:
    """A file of the catalogue size where the verified model lives (sparse: no real bytes),
    stamped as verified: its bytes are not the catalogue's, and are never read."""
    spec = CATALOGUE[name]
    path = model_path(spec, cache)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.truncate(spec.size)
    write_stamp(path, spec.sha256)
    return path


def plan(tmp_path: Path, binary: Path, *, port: int = 0, name: str = "qwen-0.5b") -> LocalPlan:
    cache = tmp_path / "cache"
    fake_model(cache, name)
    return LocalPlan(
        model=CATALOGUE[name],
        server_path=str(binary),
        port=port,
        threads=1,
        context=2048,
        state_dir=tmp_path / "state",
        cache=cache,
    )


def set_mode(mode: str) -> None:
    os.environ["FAKE_LLAMA_MODE"] = mode


def record_starts(monkeypatch: pytest.MonkeyPatch, path: Path) -> Path:
    """Have every fake server started from now on write its pid into `path`."""
    monkeypatch.setenv("FAKE_LLAMA_STARTS", str(path))
    return path


def pids_in(path: Path) -> list[int]:
    """The pids a FAKE_LLAMA_STARTS (or FAKE_LLAMA_HELPS) file holds, in start order."""
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def gone(pid: int) -> bool:
    """Whether `pid` ends within a bounded number of looks (a stop has waited for it)."""
    return until(lambda: not alive(pid), looks=200)


async def crash(pid: int) -> None:
    """SIGKILL, and wait until it is gone, as a crash is by the time a request fails."""
    os.kill(pid, signal.SIGKILL)
    for _ in range(200):
        if not alive(pid):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{pid} outlived SIGKILL")


def until(condition: Callable[[], bool], looks: int = 1200) -> bool:
    """Whether `condition` holds within a bounded number of looks, 50 ms apart."""
    for _ in range(looks):
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def end(pid: int) -> None:
    """SIGKILL `pid` if it still runs: a failed test leaves no server behind."""
    if alive(pid):
        os.kill(pid, signal.SIGKILL)
