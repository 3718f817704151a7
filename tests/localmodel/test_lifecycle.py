"""The shared server's life across rune-lsp processes: shared by two and stopped by the last
(whichever started it), started through wrapper scripts, orphaned by an owner killed with
SIGKILL and reaped by the next start, and said to be left running when it cannot be stopped.

The other rune-lsp is a real process (`holder.py`); the server is the fake llama-server.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from rune_lsp.localmodel.processes import alive
from rune_lsp.localmodel.progress import Cancel, no_progress
from rune_lsp.localmodel.provision import LocalPlan, provision
from rune_lsp.localmodel.supervisor import Supervisor
from tests.localmodel.fakes import (
    end,
    fake_binary,
    gone,
    pids_in,
    plan,
    record_starts,
    until,
)
from tests.localmodel.holder import plan_json

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FAKE_LLAMA_MODE", raising=False)


class Holder:
    """Another rune-lsp holding a lease on the plan's server."""

    def __init__(self, chosen: LocalPlan) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.localmodel.holder", plan_json(chosen)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        leased = json.loads(self.process.stdout.readline() or "null")
        assert leased is not None, "the other rune-lsp could not start its server"
        self.server_pid: int = leased["pid"]
        self.port: int = leased["port"]

    def release(self) -> str:
        """Gives the lease back; what the holder printed about it."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("release\n")
        self.process.stdin.flush()
        said = self.process.stdout.readline()
        self.process.wait(timeout=60)
        return said

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=60)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=60)


@pytest.fixture
def holders() -> Iterator[list[Holder]]:
    started: list[Holder] = []
    yield started
    for holder in started:
        holder.close()
        end(holder.server_pid)


def _orphaned(tmp_path: Path, holders: list[Holder]) -> tuple[LocalPlan, Holder]:
    """A server whose only owner was killed with SIGKILL: it gave nothing back."""
    chosen = plan(tmp_path, fake_binary(tmp_path / "bin"))
    owner = Holder(chosen)
    holders.append(owner)
    owner.kill()
    return chosen, owner


def _answers(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _records(chosen: LocalPlan) -> list[Path]:
    return sorted((chosen.state_dir / "local-model").glob("*.json"))


def test_the_last_of_two_processes_stops_the_server_the_other_started(
    tmp_path: Path, holders: list[Holder]
) -> None:
    chosen = plan(tmp_path, fake_binary(tmp_path / "bin"))
    mine = provision(chosen, progress=no_progress, cancel=Cancel())
    other = Holder(chosen)
    holders.append(other)
    assert other.server_pid == mine.record.pid  # joined, not started again
    first = mine.release()
    assert _answers(other.port)

    said = other.release()  # not the server's parent, and the wrapper exec'd it: found by port
    assert gone(mine.record.pid)
    assert not _answers(other.port)
    assert first.outcome == "in use"
    assert json.loads(said) == {"outcome": "stopped", "message": ""}
    assert _records(chosen) == []


def test_a_wrapper_script_that_spawns_the_server_is_stopped_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    starts = record_starts(monkeypatch, tmp_path / "starts")
    chosen = plan(tmp_path, fake_binary(tmp_path / "bin", spawn=True))
    lease = provision(chosen, progress=no_progress, cancel=Cancel())
    [server] = pids_in(starts)
    try:
        assert server != lease.record.pid  # rune started the script; the script the server
        released = lease.release()
        assert gone(server) and gone(lease.record.pid)
        assert not _answers(lease.record.port)
        assert released.outcome == "stopped"
    finally:
        end(server)


def test_a_server_that_cannot_be_stopped_is_said_to_be_left_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    starts = record_starts(monkeypatch, tmp_path / "starts")
    monkeypatch.setenv("FAKE_LLAMA_MODE", "disguise")  # its own session, no model on its line
    chosen = plan(tmp_path, fake_binary(tmp_path / "bin"))
    lease = provision(chosen, progress=no_progress, cancel=Cancel())
    [server] = pids_in(starts)
    try:
        released = lease.release()
        assert released.outcome == "left running"
        assert f"the local model server on port {lease.record.port}" in released.message
        assert "could not be stopped: it still answers" in released.message
        assert released.message.endswith(f"end it: kill {server}")
        assert _answers(lease.record.port)
        # Kept on record: the next start joins it rather than starting a second one.
        assert Supervisor(chosen.state_dir).read_record(lease.spec.key) is not None
    finally:
        os.kill(server, signal.SIGKILL)


def test_the_server_of_an_owner_killed_with_sigkill_is_stopped_by_the_next_start(
    tmp_path: Path, holders: list[Holder]
) -> None:
    chosen, owner = _orphaned(tmp_path, holders)
    assert _answers(owner.port)

    other_settings = replace(chosen, context=4096)
    lease = provision(other_settings, progress=no_progress, cancel=Cancel())
    try:
        assert gone(owner.server_pid)
        assert not _answers(owner.port)
        assert [path.stem for path in _records(chosen)] == [lease.spec.key]
    finally:
        lease.release()


def test_the_server_of_a_killed_owner_is_joined_by_the_same_settings_and_stopped_after(
    tmp_path: Path, holders: list[Holder]
) -> None:
    chosen, owner = _orphaned(tmp_path, holders)

    lease = provision(chosen, progress=no_progress, cancel=Cancel())
    assert lease.record.pid == owner.server_pid  # joined: no second start
    supervisor = Supervisor(chosen.state_dir)
    assert supervisor.live_leases(lease.spec.key) == [lease.file]  # the dead one's dropped
    released = lease.release()
    assert gone(owner.server_pid)
    assert not _answers(owner.port)
    assert released.outcome == "stopped"


def test_an_owner_killed_while_its_server_starts_leaves_it_to_the_next_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, holders: list[Holder]
) -> None:
    starts = record_starts(monkeypatch, tmp_path / "starts")
    monkeypatch.setenv("FAKE_LLAMA_MODE", "hang")  # never healthy: its owner waits on it
    chosen = plan(tmp_path, fake_binary(tmp_path / "bin"))
    owner = subprocess.Popen(
        [sys.executable, "-m", "tests.localmodel.holder", plan_json(chosen)],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    try:
        until(lambda: bool(pids_in(starts)) and bool(_records(chosen)))
        [hung] = pids_in(starts)
    finally:
        owner.kill()
        owner.wait(timeout=60)

    monkeypatch.delenv("FAKE_LLAMA_MODE")
    lease = provision(chosen, progress=no_progress, cancel=Cancel())
    try:
        assert gone(hung)
        assert lease.record.pid != hung
    finally:
        lease.release()
        end(hung)


def test_a_lease_whose_pid_was_reused_by_a_newer_process_is_dropped(tmp_path: Path) -> None:
    chosen = plan(tmp_path, fake_binary(tmp_path / "bin"))
    lease = provision(chosen, progress=no_progress, cancel=Cancel())
    # A dead rune-lsp's lease, its pid since taken by a live process that started later.
    ghost = lease.file.with_name(f"{os.getppid()}-deadbeef")
    ghost.write_text("1", encoding="utf-8")  # started one tick after boot: not that process
    released = lease.release()
    assert not ghost.exists()
    assert gone(lease.record.pid)
    assert released.outcome == "stopped"


def test_a_stale_record_never_stops_another_server_that_took_its_port(tmp_path: Path) -> None:
    chosen = plan(tmp_path, fake_binary(tmp_path / "bin"))
    first = provision(chosen, progress=no_progress, cancel=Cancel())
    os.kill(first.record.pid, signal.SIGKILL)
    assert gone(first.record.pid)
    # The same model with other settings, on the port the dead one had.
    other = provision(
        replace(chosen, context=4096, port=first.record.port), progress=no_progress, cancel=Cancel()
    )
    try:
        again = provision(chosen, progress=no_progress, cancel=Cancel())  # replaces the dead one
        try:
            assert alive(other.record.pid) and _answers(other.record.port)
            assert again.record.port != other.record.port
        finally:
            again.release()
    finally:
        other.release()
        first.release()
