"""A check that cannot run is the user's configuration error, told before any model turn; a
check that fails or hangs is about the code (issue 26, point 5). Real tiny commands, temp dirs."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from rune_lsp.runner.check_result import CheckCannotRunError, cannot_run, steady
from rune_lsp.runner.verify import CheckFeed, ShellVerifier
from rune_lsp.store.receipt import CheckRecord
from tests.loop.fakes import ScriptedModel, answer
from tests.runner.conftest import Rig

PYTHON = shlex.quote(sys.executable)
#: pytest without the plugins of this venv that print warnings into every report.
PYTEST = f"{PYTHON} -m pytest -q -p no:cacheprovider -p no:asyncio"
FAILING_TEST = "def test_sum():\n    assert sum([1, 2]) == 4\n"


def _read(path: str) -> str:
    return Path(path).read_text(encoding="utf-8")


async def _record(command: str, cwd: Path, limit: float = 60) -> CheckRecord:
    return (await ShellVerifier(command, cwd=cwd, timeout=limit).verify([])).record


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("no-such-command-rune-26 --check", "its command was not found (exit 127)"),
        (f"{PYTEST} tests/test_nope.py", "found no file or directory to run (exit 4)"),
        (PYTEST, "pytest collected no tests (exit 5)"),
        (f"{PYTHON} -m unittest", "unittest ran no tests"),
        (f"{PYTHON} -m no_such_module_rune_26", "the module no_such_module_rune_26 it runs"),
    ],
)
async def test_a_check_that_cannot_run_says_why(tmp_path: Path, command: str, reason: str) -> None:
    problem = cannot_run(await _record(command, tmp_path))

    assert problem is not None
    assert reason in problem.reason
    assert f"`{command}` cannot run" in problem.message


async def test_the_message_shows_what_the_check_said(tmp_path: Path) -> None:
    problem = cannot_run(await _record(f"{PYTEST} tests/test_nope.py", tmp_path))

    assert problem is not None
    assert "file or directory not found: tests/test_nope.py" in problem.message


@pytest.mark.parametrize(
    "command",
    [
        f"{PYTEST} test_sum.py",  # a failing test: the code's failure
        "exit 4",  # exit 4 of anything but pytest means what that command says
        "exit 1",
    ],
)
async def test_a_failing_check_is_a_failure_of_the_code(tmp_path: Path, command: str) -> None:
    (tmp_path / "test_sum.py").write_text(FAILING_TEST, encoding="utf-8")
    record = await _record(command, tmp_path)

    assert not record.passed
    assert cannot_run(record) is None


async def test_a_check_cut_by_the_timeout_stays_a_real_failure(tmp_path: Path) -> None:
    record = await _record(f"{PYTHON} -c 'while True: pass'", tmp_path, limit=0.5)

    assert record.timed_out
    assert cannot_run(record) is None


async def test_a_check_whose_folder_is_gone_cannot_start(tmp_path: Path) -> None:
    feed = CheckFeed(ShellVerifier("true", cwd=tmp_path / "gone", timeout=5))

    with pytest.raises(CheckCannotRunError) as raised:
        await feed.first()

    assert "could not be started" in raised.value.problem.reason
    assert raised.value.record is None


async def test_the_run_ends_failed_before_any_model_turn(rig: Rig) -> None:
    model = ScriptedModel.of(answer("never asked"))
    driver = rig.driver(model, check="no-such-command-rune-26 -q")

    result = await driver.start("u-1")

    assert model.calls == []
    assert result.outcome == "failed"
    assert result.error is not None
    assert "the check `no-such-command-rune-26 -q` cannot run" in result.error
    assert "not found" in result.error  # what the shell said
    assert driver.unrunnable is not None
    assert result.receipt is not None
    assert json.loads(_read(result.receipt))["check"]["exitCode"] == 127


async def test_a_hanging_check_goes_to_the_model_as_a_failure(rig: Rig) -> None:
    model = ScriptedModel.of(answer("It loops forever; I cannot tell why."))
    driver = rig.driver(model, check=f"{PYTHON} -c 'while True: pass'", check_timeout=0.5)

    result = await driver.start("u-2")

    assert len(model.calls) == 1
    assert "timed out" in model.calls[0].messages[1].content
    assert result.error is None
    assert driver.unrunnable is None


async def test_the_first_check_runs_once_for_the_driver_and_the_loop(rig: Rig) -> None:
    counter = rig.root / "runs"
    check = f"{PYTHON} -c \"open('runs', 'a').write('x'); raise SystemExit(1)\""
    model = ScriptedModel.of(answer("Cannot fix."))

    await rig.driver(model, check=check).start("u-3")

    assert _read(str(counter)) == "x"
    assert "failed (exit 1) on the current code" in model.calls[0].messages[1].content


def test_steady_keeps_what_is_about_the_code() -> None:
    said = "Ran 3 tests in 0.001s\nFAILED (failures=1)\nFound 3 errors in 1 file\nx = 0x1f"

    assert steady(said) == "Ran 3 tests\nFAILED (failures=1)\nFound 3 errors in 1 file\nx = 0x1f"
