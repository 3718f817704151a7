"""The `local` provider: provisioned on first use, restarted once after a crash (and the user
told), its failures typed for the loop, cancelling that stops the start."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from rune_lsp.localmodel.processes import alive
from rune_lsp.loop.messages import Message
from rune_lsp.providers import make_model
from rune_lsp.providers.local import LocalHooks, LocalModel, LocalModelUnavailable
from rune_lsp.settings import Settings
from tests.localmodel.fakes import crash, fake_binary, fake_model, pids_in, record_starts


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.delenv("FAKE_LLAMA_MODE", raising=False)
    monkeypatch.setenv("RUNE_CACHE_DIR", str(tmp_path / "cache"))
    fake_model(tmp_path / "cache", "qwen-0.5b")
    return Settings(
        provider="local",
        local_model="qwen-0.5b",
        local_server_path=str(fake_binary(tmp_path / "bin")),
        state_dir=str(tmp_path / "state"),
    )


async def _until(condition: Callable[[], bool], seconds: float = 10) -> None:
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)


ASK = [Message(role="user", content="Reply with the single word: ok")]


def _local(settings: Settings, hooks: LocalHooks) -> LocalModel:
    model = make_model(settings, local=hooks)
    assert isinstance(model, LocalModel)
    return model


async def test_a_crashed_server_is_restarted_once_and_the_user_told(settings: Settings) -> None:
    notices: list[str] = []
    model = make_model(settings, local=LocalHooks(notice=notices.append))
    assert isinstance(model, LocalModel)
    try:
        assert (await model.chat(ASK, [])).text == "ok"
        lease = await model.ensure_started()
        first_url = model.endpoint.base_url
        os.kill(lease.record.pid, signal.SIGKILL)
        await _until(lambda: not alive(lease.record.pid))

        assert (await model.chat(ASK, [])).text == "ok"
        [notice] = notices
        assert notice.startswith("rune: the local model server had stopped (killed by signal 9")
        assert model.endpoint.base_url == lease.base_url
        assert lease.base_url != first_url or lease.restarts == 1
    finally:
        await model.aclose()
    assert not list((Path(settings.state_dir or "") / "local-model").glob("*.json"))


async def test_a_binary_that_is_too_old_fails_the_call_with_the_reason(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_LLAMA_MODE", "old")
    model = make_model(settings)
    try:
        with pytest.raises(LocalModelUnavailable, match="too old or not llama-server"):
            await model.capabilities()
    finally:
        await model.aclose()


async def test_cancelling_the_start_stops_the_server_it_started(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    starts = tmp_path / "starts"
    monkeypatch.setenv("FAKE_LLAMA_STARTS", str(starts))
    monkeypatch.setenv("FAKE_LLAMA_MODE", "hang")
    model = make_model(settings)
    assert isinstance(model, LocalModel)
    task = asyncio.ensure_future(model.ensure_started())
    await _until(starts.exists)  # the fake server runs but never becomes healthy
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await model.aclose()
    [pid] = [int(line) for line in starts.read_text().split()]
    assert not alive(pid)
    assert not list((Path(settings.state_dir or "") / "local-model").glob("*.json"))


async def test_after_a_second_crash_the_next_call_provisions_anew(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    starts = record_starts(monkeypatch, tmp_path / "starts")
    model = _local(settings, LocalHooks())
    try:
        lease = await model.ensure_started()
        await crash(lease.record.pid)
        assert (await model.chat(ASK, [])).text == "ok"  # restarted once
        await crash(lease.record.pid)
        with pytest.raises(LocalModelUnavailable, match="stopped again"):
            await model.chat(ASK, [])

        # The session goes on: the next call provisions a new server rather than failing.
        assert (await model.chat(ASK, [])).text == "ok"
        assert len(pids_in(starts)) == 3
        assert await model.answering()
    finally:
        await model.aclose()
    assert not list((Path(settings.state_dir or "") / "local-model").glob("*.json"))


async def test_a_server_left_running_at_close_is_told(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    starts = record_starts(monkeypatch, tmp_path / "starts")
    monkeypatch.setenv("FAKE_LLAMA_MODE", "disguise")  # a server rune cannot find to stop
    notices: list[str] = []
    model = _local(settings, LocalHooks(notice=notices.append))
    try:
        assert (await model.chat(ASK, [])).text == "ok"
    finally:
        await model.aclose()
        [server] = pids_in(starts)
        os.kill(server, signal.SIGKILL)
    [notice] = notices
    assert notice.startswith("rune: the local model server on port ")
    assert "could not be stopped: it still answers" in notice and f"kill {server}" in notice
