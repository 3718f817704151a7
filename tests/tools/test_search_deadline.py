"""A pattern that backtracks without end costs one tool result, never a frozen server."""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import time
from collections.abc import Awaitable
from pathlib import Path

import pytest

from rune_lsp.loop.state import ToolOutcome
from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.sandbox import Sandbox
from rune_lsp.tools.schemas import SearchArgs
from tests.tools.overlay import OverlayDocuments
from tests.tools.workspace import write

#: `(a+)+$` on this line backtracks for about 2**30 steps: minutes, with the GIL held throughout.
EVIL = SearchArgs(pattern="(a+)+$")
EVIL_LINE = "a" * 30 + "!\n"
DEADLINE = 1.0


def _tools(ws: Path, *, ripgrep: bool, deadline: float = DEADLINE) -> WorkspaceTools:
    return WorkspaceTools(
        ws,
        Sandbox.for_workspace([ws]),
        OverlayDocuments({}),
        use_ripgrep=ripgrep,
        search_timeout=deadline,
    )


async def _while_ticking(work: Awaitable[ToolOutcome]) -> tuple[ToolOutcome, float, int]:
    """The outcome, the seconds it took, and how many times the event loop woke a ticker
    meanwhile (a loop blocked for the whole search wakes it at most once)."""
    ticks = 0
    done = asyncio.Event()

    async def tick() -> None:
        nonlocal ticks
        while not done.is_set():
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    started = time.monotonic()
    try:
        outcome = await work
    finally:
        done.set()
        await ticker
    return outcome, time.monotonic() - started, ticks


#: A search that is not stopped runs for minutes; one stopped at the deadline takes about
#: DEADLINE. Bounded this loosely, a loaded machine cannot fail the test (issue 25, item 10).
STOPPED_WITHIN = DEADLINE * 10
#: Ticks of 10 ms over a search of about DEADLINE: ~100 on an idle machine, at most one when
#: the event loop is blocked throughout.
MIN_TICKS = 5


def _assert_timed_out(outcome: ToolOutcome, took: float, ticks: int) -> None:
    assert outcome.status == "failed"
    assert outcome.content.startswith(
        f"search timed out after {DEADLINE:g} s: matching '(a+)+$' took too long. "
        "Simplify the pattern"
    )
    assert took < STOPPED_WITHIN
    assert ticks >= MIN_TICKS  # the event loop kept serving the editor throughout


async def test_a_catastrophic_pattern_times_out_without_ripgrep(ws: Path) -> None:
    write(ws, "a.txt", EVIL_LINE)
    tools = _tools(ws, ripgrep=False)
    _assert_timed_out(*await _while_ticking(tools.execute("search", EVIL)))


async def test_a_catastrophic_pattern_times_out_with_ripgrep(ws: Path) -> None:
    if shutil.which("rg") is None:
        pytest.skip("ripgrep (rg) is not on PATH; the fake-rg tests below still run")
    write(ws, "a.txt", EVIL_LINE)
    # rg's engine is linear: it rules the file out at once, so Python never matches it. Under
    # a deadline of its own: rg's and the child's start-up took over 1 s on a loaded machine.
    outcome = await _tools(ws, ripgrep=True, deadline=60).execute("search", EVIL)
    assert outcome.content == "No matches for '(a+)+$' in .."
    # A file rg does find a match in is matched line by line in Python: the deadline holds.
    write(ws, "a.txt", "aaa\n" + EVIL_LINE)
    tools = _tools(ws, ripgrep=True)
    _assert_timed_out(*await _while_ticking(tools.execute("search", EVIL)))


async def test_a_catastrophic_glob_times_out(ws: Path) -> None:
    write(ws, "a" * 40, "x\n")  # pathspec makes this glob a regex with ten nested [^/]*
    tools = _tools(ws, ripgrep=False)
    outcome, took, ticks = await _while_ticking(
        tools.execute("search", SearchArgs(pattern="x", glob="*a" * 10 + "*b"))
    )
    assert outcome.status == "failed"
    assert outcome.content.startswith(f"search timed out after {DEADLINE:g} s")
    assert "over files matching" in outcome.content
    assert took < STOPPED_WITHIN and ticks >= MIN_TICKS


def _fake_rg(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "bin" / "rg"
    script.parent.mkdir()
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


async def test_a_hanging_ripgrep_is_killed_at_the_deadline(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid_file = tmp_path / "rg.pid"
    rg = _fake_rg(tmp_path, f'echo $$ > "{pid_file}"\nexec sleep 600')
    monkeypatch.setenv("PATH", f"{rg.parent}{os.pathsep}{os.environ['PATH']}")
    write(ws, "a.txt", "needle\n")
    tools = _tools(ws, ripgrep=True)
    outcome, took, ticks = await _while_ticking(
        tools.execute("search", SearchArgs(pattern="needle"))
    )
    assert outcome.content.startswith(f"search timed out after {DEADLINE:g} s")
    assert took < STOPPED_WITHIN and ticks >= MIN_TICKS
    pid = int(pid_file.read_text())
    for _ in range(50):  # killed with its group, at once or a moment later
        if not _running(pid):
            break
        await asyncio.sleep(0.02)
    assert not _running(pid)


def _running(pid: int) -> bool:
    """Alive and not a zombie (a killed orphan waits for init to reap it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state != "Z"


async def test_an_ordinary_search_in_its_child_process_finds_its_match(ws: Path) -> None:
    """Its cost (the child's start-up: 0.7 to 1.2 s on the shared CI machine, over the 1 s
    deadline of the tests above) is measured by `python -m bench.timed_checks`."""
    write(ws, "a.py", "needle\n")
    tools = _tools(ws, ripgrep=False, deadline=60)
    outcome = await tools.execute("search", SearchArgs(pattern="needle"))
    assert outcome.content == "a.py:1: needle"


async def test_cancelling_the_search_kills_its_child_at_once(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid_file = tmp_path / "rg.pid"
    rg = _fake_rg(tmp_path, f'echo $$ > "{pid_file}"\nexec sleep 600')
    monkeypatch.setenv("PATH", f"{rg.parent}{os.pathsep}{os.environ['PATH']}")
    write(ws, "a.txt", "needle\n")
    tools = WorkspaceTools(ws, Sandbox.for_workspace([ws]), OverlayDocuments({}), search_timeout=60)
    search = asyncio.create_task(tools.execute("search", SearchArgs(pattern="needle")))
    for _ in range(250):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.02)
    pid = int(pid_file.read_text())
    search.cancel()
    with pytest.raises(asyncio.CancelledError):
        await search
    for _ in range(50):  # well before the 60 s deadline
        if not _running(pid):
            break
        await asyncio.sleep(0.02)
    assert not _running(pid)
