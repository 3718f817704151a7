from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from rune_lsp.tools.context import ToolContext
from rune_lsp.tools.documents import DiskDocuments
from rune_lsp.tools.errors import ToolError
from rune_lsp.tools.run_command import ShellResult, describe_result, prepare_command, run_shell
from rune_lsp.tools.sandbox import Sandbox
from rune_lsp.tools.schemas import RunCommandArgs


async def test_exit_status_and_both_streams(tmp_path: Path) -> None:
    result = await run_shell("echo out; echo err >&2; exit 3", cwd=tmp_path, timeout=10)
    assert result.exit_code == 3
    assert not result.timed_out
    assert result.stdout_tail == "out\n"
    assert result.stderr_tail == "err\n"


async def test_runs_in_the_given_directory_without_stdin(tmp_path: Path) -> None:
    result = await run_shell("pwd; cat; echo end", cwd=tmp_path, timeout=10)
    assert result.stdout_tail == f"{tmp_path}\nend\n"


async def test_terminal_colours_and_titles_are_removed(tmp_path: Path) -> None:
    coloured = r"\033[31m\033[1m2 failed\033[0m, \033[32m1 passed\033[0m in 0.1s\033]0;title\007"
    other = r"\033(B\0337err\0338\n\033]0;no end\nnext"  # tput sgr0, save/restore, an open OSC
    result = await run_shell(
        f"printf '{coloured}\\n'; printf '{other}\\n' >&2", cwd=tmp_path, timeout=10
    )
    assert result.stdout_tail == "2 failed, 1 passed in 0.1s\n"
    assert result.stderr_tail == "err\n\nnext\n"


async def test_only_the_tail_is_kept(tmp_path: Path) -> None:
    result = await run_shell("seq 1 100000", cwd=tmp_path, timeout=10, tail_bytes=64)
    assert len(result.stdout_tail.encode()) == 64
    assert result.stdout_tail.endswith("99999\n100000\n")
    assert result.stdout_dropped == len("".join(f"{n}\n" for n in range(1, 100001))) - 64


async def test_timeout_kills_the_process_group(tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    started = time.monotonic()
    result = await run_shell(f"sleep 30 & echo $! > {marker}; wait", cwd=tmp_path, timeout=0.5)
    assert result.timed_out
    assert time.monotonic() - started < 10
    child = int(marker.read_text())
    await asyncio.sleep(0.1)
    assert not _alive(child)


async def test_background_child_holding_the_pipes_does_not_hang(tmp_path: Path) -> None:
    started = time.monotonic()
    marker = tmp_path / "pid"
    result = await run_shell(f"echo done; sleep 30 & echo $! > {marker}", cwd=tmp_path, timeout=10)
    assert result.exit_code == 0
    assert not result.timed_out
    assert result.stdout_tail == "done\n"
    assert time.monotonic() - started < 10
    await asyncio.sleep(0.1)
    assert not _alive(int(marker.read_text()))  # killed once it overstayed the grace period


async def test_cancellation_kills_the_command(tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    task = asyncio.create_task(run_shell(f"echo $$ > {marker}; sleep 30", cwd=tmp_path, timeout=60))
    for _ in range(100):
        if marker.exists() and marker.read_text().strip():
            break
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.1)
    assert not _alive(int(marker.read_text()))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A killed child not yet reaped by its (also killed) parent is a zombie: not running.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except OSError:
        return False


def test_describe_result_for_the_model() -> None:
    ok = describe_result(
        "make",
        ShellResult(exit_code=0, timed_out=False, stdout_tail="", stderr_tail="", duration_ms=5),
        timeout=120,
    )
    assert ok.status == "ok"
    assert ok.content == "$ make\nexit status 0 after 0.0 s\n(no output)"
    failed = describe_result(
        "pytest",
        ShellResult(
            exit_code=1,
            timed_out=False,
            stdout_tail="1 failed\n",
            stderr_tail="",
            duration_ms=2500,
            stdout_dropped=10,
        ),
        timeout=120,
    )
    assert failed.status == "failed"
    assert failed.edit_status == "applied"
    assert failed.content == (
        "$ pytest\nexit status 1 after 2.5 s\n"
        "--- stdout (last part only; 10 earlier bytes dropped) ---\n1 failed"
    )
    timed = describe_result(
        "sleep 9",
        ShellResult(exit_code=-9, timed_out=True, stdout_tail="", stderr_tail="", duration_ms=1),
        timeout=0.5,
    )
    assert timed.status == "failed"
    assert "timed out after 0.5 s" in timed.content


def test_prepare_refuses_blank_commands(tmp_path: Path) -> None:
    ctx = ToolContext(
        root=tmp_path, sandbox=Sandbox.for_workspace([tmp_path]), documents=DiskDocuments()
    )
    with pytest.raises(ToolError, match="empty"):
        prepare_command(ctx, RunCommandArgs(command="   "), call_id="c", edit_id="e", reason="")
    with pytest.raises(ToolError, match="NUL"):
        prepare_command(ctx, RunCommandArgs(command="a\0b"), call_id="c", edit_id="e", reason="")
