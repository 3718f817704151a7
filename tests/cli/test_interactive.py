"""`rune-lsp fix` at a real terminal (a pty): answering y/n/q, colour, and Ctrl-C."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.cli.cli_process import clean_environ
from tests.cli.conftest import SOURCE
from tests.cli.pty_session import PtySession
from tests.cli.scripts import ADD_FIXED, ONE_EDIT, TWO_EDITS
from tests.doubles.model_double import Hang, ModelDouble

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the pty session helper is Linux-specific"
)

QUESTION = "Apply this edit? [y/n/q] "
Spawn = Callable[..., PtySession]


@pytest.fixture
def spawn(workspace: Path, cli_env: dict[str, str]) -> Iterator[Spawn]:
    sessions: list[PtySession] = []

    def start(*args: str, env: dict[str, str] | None = None) -> PtySession:
        session = PtySession(
            ["fix", *args], cwd=workspace, env=clean_environ(cli_env | (env or {}))
        )
        sessions.append(session)
        return session

    yield start
    for session in sessions:
        session.close()


def _receipts(state_dir: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted((state_dir / "receipts").glob("*.json"))]


def test_yes_to_one_edit_and_no_to_the_other(
    spawn: Spawn, double: ModelDouble, workspace: Path
) -> None:
    double.script(*TWO_EDITS)
    terminal = spawn("app.py")
    terminal.expect("[1/2] edit_file app.py")
    terminal.expect(QUESTION)
    terminal.send("y\n")
    terminal.expect("[2/2] edit_file app.py")
    terminal.expect(QUESTION)
    terminal.send("n\n")
    assert terminal.wait() == 0
    assert (workspace / "app.py").read_text() == ADD_FIXED
    shown = terminal.output
    assert "\x1b[31m-    return a - b\x1b[0m" in shown  # a terminal gets colour
    assert "\x1b[32m+    return a * 1 + b\x1b[0m" in shown
    assert "applied  edit_file app.py" in shown
    assert "rejected edit_file app.py" in shown
    assert "outcome: completed" in shown


def test_q_stops_asking(spawn: Spawn, double: ModelDouble, workspace: Path) -> None:
    double.script(*TWO_EDITS)
    terminal = spawn("app.py")
    terminal.expect(QUESTION)
    terminal.send("q\n")
    assert terminal.wait() == 0
    shown = terminal.output
    assert shown.count(QUESTION) == 1
    assert "skipped edit_file app.py: the review has ended" in shown
    assert (workspace / "app.py").read_text() == SOURCE
    told = [m["content"] for m in double.chat_requests[1].body["messages"] if m["role"] == "tool"]
    assert all("ended the review" in message for message in told)


def test_ctrl_c_during_a_slow_model_call_cancels_cleanly(
    spawn: Spawn, double: ModelDouble, state_dir: Path
) -> None:
    double.script(Hang())
    terminal = spawn("app.py")
    terminal.expect("step 1/8 · asking the model")
    assert double.wait_for_chat(timeout=10)
    terminal.send("\x03")
    assert terminal.wait() == 1
    shown = terminal.output
    assert "interrupted: cancelling the run" in shown
    assert "outcome: cancelled" in shown
    assert "Traceback" not in shown
    assert "KeyboardInterrupt" not in shown
    [receipt] = _receipts(state_dir)
    assert receipt["result"]["outcome"] == "cancelled"  # type: ignore[index]
    assert f"receipt: {state_dir / 'receipts'}" in shown
    assert double.wait_for_disconnect(timeout=5) is not None  # the model call was dropped


def test_ctrl_c_at_the_question_cancels_without_colour_under_no_color(
    spawn: Spawn, double: ModelDouble, workspace: Path, state_dir: Path
) -> None:
    double.script(*TWO_EDITS)
    terminal = spawn("app.py", env={"NO_COLOR": "1"})
    terminal.expect(QUESTION)
    terminal.send("\x03")
    assert terminal.wait() == 1
    shown = terminal.output
    assert "-    return a - b\n+    return a * 1 + b\n" in shown
    assert "\x1b[" not in shown
    assert "outcome: cancelled" in shown
    assert "Traceback" not in shown
    assert (workspace / "app.py").read_text() == SOURCE
    [receipt] = _receipts(state_dir)
    assert receipt["result"]["outcome"] == "cancelled"  # type: ignore[index]


def test_ctrl_c_during_the_check_after_an_edit_cancels_the_run_and_keeps_the_edit(
    spawn: Spawn, double: ModelDouble, workspace: Path, state_dir: Path
) -> None:
    marker = workspace / "check.pid"
    # Fails at once before the fix (the check before the first turn), hangs after it.
    slow_check = shlex.join(
        [
            sys.executable,
            "-c",
            "import os, sys, time; 'a * 1 + b' in open('app.py').read() or sys.exit(1); "
            f"open({str(marker)!r}, 'w').write(str(os.getpid())); time.sleep(60)",
        ]
    )
    double.script(*ONE_EDIT)
    # One candidate: this is about the check after the edit, not a candidate's in a scratch copy.
    terminal = spawn(
        "app.py", "--yes", "--json", "--check-command", slow_check, "--candidates", "1"
    )
    deadline = time.monotonic() + 15
    while not marker.exists() or not marker.read_text():
        assert time.monotonic() < deadline, terminal.output
        time.sleep(0.02)
    terminal.send("\x03")
    # The check the loop waits for is part of the run: stopping it stops the run, and the
    # accepted edit stays applied and reported.
    assert terminal.wait() == 1
    shown = terminal.output
    assert "Traceback" not in shown
    result = json.loads(shown[shown.index("{") :])
    assert (result["outcome"], result["verified"]) == ("cancelled", None)
    assert result["edits"][0]["status"] == "applied"
    assert (workspace / "app.py").read_text(encoding="utf-8") == ADD_FIXED
    [receipt] = _receipts(state_dir)
    assert receipt["result"]["outcome"] == "cancelled"  # type: ignore[index]
    with pytest.raises(ProcessLookupError):  # the check did not outlive the run
        _wait_gone(int(marker.read_text()))


def _wait_gone(pid: int) -> None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        os.kill(pid, 0)  # raises ProcessLookupError once it is gone
        time.sleep(0.02)
