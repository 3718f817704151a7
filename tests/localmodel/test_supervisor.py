"""The shared model server: started once, leased by many, stopped with the last, restarted
once after a crash, and clear errors for a taken port or a server that will not start."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from rune_lsp.localmodel.errors import PortTaken, ServerFailed
from rune_lsp.localmodel.processes import alive, free_port
from rune_lsp.localmodel.progress import Cancel, no_progress
from rune_lsp.localmodel.provision import provision
from rune_lsp.localmodel.supervisor import Supervisor
from tests.localmodel.fakes import fake_binary, plan


@pytest.fixture(autouse=True)
def _mode(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("FAKE_LLAMA_MODE", raising=False)
    yield


def _records(state_dir: Path) -> list[Path]:
    return sorted((state_dir / "local-model").glob("*.json"))


def _kill(pid: int) -> None:
    """SIGKILL and wait until it is gone, as a crash is by the time a request fails."""
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)


def _healthy(base_url: str) -> bool:
    try:
        return httpx.get(base_url.removesuffix("/v1") + "/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def test_two_users_share_one_server_and_the_last_one_stops_it(tmp_path: Path) -> None:
    chosen = plan(tmp_path, fake_binary(tmp_path / "bin"))
    first = provision(chosen, progress=no_progress, cancel=Cancel())
    second = provision(chosen, progress=no_progress, cancel=Cancel())
    try:
        assert second.record.pid == first.record.pid  # joined, not started again
        assert second.base_url == first.base_url
        assert _healthy(first.base_url)
        record = Supervisor(chosen.state_dir).read_record(first.spec.key)
        assert record is not None and record.port == first.record.port

        assert first.release().outcome == "in use"  # the second still uses it
        assert _healthy(second.base_url)
    finally:
        first.release()
        stopped = second.release()
    assert stopped.outcome == "stopped"
    assert not alive(first.record.pid)
    assert not _healthy(first.base_url)
    assert _records(chosen.state_dir) == []


def test_a_lease_of_a_dead_process_does_not_keep_the_server(tmp_path: Path) -> None:
    chosen = plan(tmp_path, fake_binary(tmp_path / "bin"))
    lease = provision(chosen, progress=no_progress, cancel=Cancel())
    # A rune-lsp that was killed left its lease file behind.
    ghost = lease.file.with_name("999999999-deadbeef")
    ghost.write_text("", encoding="utf-8")
    assert lease.release().outcome == "stopped"
    assert not ghost.exists()
    assert not alive(lease.record.pid)


def test_a_configured_port_that_is_taken_is_refused_clearly(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        chosen = plan(tmp_path, fake_binary(tmp_path / "bin"), port=port)
        with pytest.raises(PortTaken, match=f"port {port} on 127.0.0.1 is taken.*localPort"):
            provision(chosen, progress=no_progress, cancel=Cancel())
    assert _records(chosen.state_dir) == []


def test_a_server_that_exits_while_starting_is_reported_with_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_LLAMA_MODE", "exit")
    chosen = plan(tmp_path, fake_binary(tmp_path / "bin"))
    with pytest.raises(ServerFailed, match=r"(?s)exited \(exit status 1\).*not within bounds"):
        provision(chosen, progress=no_progress, cancel=Cancel())
    assert _records(chosen.state_dir) == []


def test_a_crashed_server_is_restarted_once_then_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    starts = tmp_path / "starts"
    monkeypatch.setenv("FAKE_LLAMA_STARTS", str(starts))
    chosen = plan(tmp_path, fake_binary(tmp_path / "bin"))
    lease = provision(chosen, progress=no_progress, cancel=Cancel())
    try:
        assert lease.revive() is None  # still running: nothing to restart
        _kill(lease.record.pid)
        told = lease.revive()
        assert told is not None and "had stopped (killed by signal 9" in told
        assert "restarted it on port" in told
        assert _healthy(lease.base_url)
        assert len(starts.read_text().split()) == 2

        _kill(lease.record.pid)
        with pytest.raises(ServerFailed, match=r"stopped again .*not restarting it twice"):
            lease.revive()
    finally:
        lease.release()


def test_a_stale_record_of_a_dead_server_is_replaced(tmp_path: Path) -> None:
    chosen = plan(tmp_path, fake_binary(tmp_path / "bin"))
    lease = provision(chosen, progress=no_progress, cancel=Cancel())
    _kill(lease.record.pid)
    try:
        again = provision(chosen, progress=no_progress, cancel=Cancel())
        try:
            assert again.record.pid != lease.record.pid
            assert _healthy(again.base_url)
        finally:
            again.release()
    finally:
        lease.release()


def test_other_settings_get_their_own_server_and_leave_the_first_alone(tmp_path: Path) -> None:
    chosen = plan(tmp_path, fake_binary(tmp_path / "bin"))
    first = provision(chosen, progress=no_progress, cancel=Cancel())
    try:
        other = provision(replace(chosen, context=4096), progress=no_progress, cancel=Cancel())
        try:
            assert other.record.pid != first.record.pid
            assert _healthy(first.base_url) and _healthy(other.base_url)
            assert len(_records(chosen.state_dir)) == 2
        finally:
            other.release()
        assert _healthy(first.base_url)
    finally:
        first.release()
    assert _records(chosen.state_dir) == []


def test_a_crashed_server_on_a_configured_port_is_restarted_on_that_port(tmp_path: Path) -> None:
    chosen = plan(tmp_path, fake_binary(tmp_path / "bin"), port=free_port())
    lease = provision(chosen, progress=no_progress, cancel=Cancel())
    try:
        assert _healthy(lease.base_url)  # a connection the dead server's side leaves waiting
        _kill(lease.record.pid)
        told = lease.revive()
        assert told is not None and f"restarted it on port {chosen.port}" in told
        assert _healthy(lease.base_url)
    finally:
        lease.release()
