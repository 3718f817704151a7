"""Verification is its own claim: passing, failing, timing out, absent, and never for nothing."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rune_lsp.loop.records import RunResult
from rune_lsp.runner.verify import (
    CheckOutcome,
    ShellVerifier,
    annotate_answer,
    report_of,
    verified_from,
)
from rune_lsp.store.receipt import CheckRecord
from tests.loop.fakes import ScriptedModel, answer, edit, turn
from tests.runner.conftest import RecordingReviewer, Rig, reject_all


def stored(result: RunResult) -> dict[str, Any]:
    """The receipt the run wrote, as JSON."""
    assert result.receipt is not None
    data: dict[str, Any] = json.loads(Path(result.receipt).read_text(encoding="utf-8"))
    return data


FIX = edit("calc.py", old="return a - b", new="return a + b")
PY = sys.executable
CHECK_ADD = f'{PY} -c "from calc import add; assert add(2, 3) == 5, add(2, 3)"'


async def test_a_passing_check_after_an_applied_edit_verifies(rig: Rig) -> None:
    model = ScriptedModel.of(turn(FIX), answer("Fixed it."))
    result = await rig.driver(model, check=CHECK_ADD).start("v-1")

    assert result.outcome == "completed"
    assert result.verified is True
    assert "passed (exit 0)" in result.answer
    receipt = stored(result)
    assert receipt["check"]["exitCode"] == 0


async def test_a_failing_check_is_false_and_the_answer_says_so(rig: Rig) -> None:
    wrong = edit("calc.py", old="return a - b", new="return a * b")
    model = ScriptedModel.of(turn(wrong), answer("Fixed and verified!"))
    result = await rig.driver(model, check=CHECK_ADD).start("v-2")

    assert result.verified is False
    assert "not verified" in result.answer
    assert "AssertionError" in result.answer  # the failing tail is shown
    receipt = stored(result)
    assert receipt["check"]["exitCode"] != 0
    assert "AssertionError" in receipt["check"]["stderrTail"]


async def test_a_check_that_times_out_is_false(rig: Rig) -> None:
    slow = f'{PY} -c "import time; time.sleep(30)"'
    model = ScriptedModel.of(turn(FIX), answer("Fixed."))
    result = await rig.driver(model, check=slow, check_timeout=0.5).start("v-3")

    assert result.verified is False
    assert "timed out" in result.answer
    receipt = stored(result)
    assert receipt["check"]["timedOut"] is True


async def test_no_check_configured_is_null_and_a_claim_is_corrected(rig: Rig) -> None:
    model = ScriptedModel.of(turn(FIX), answer("Fixed and verified."))
    result = await rig.driver(model).start("v-4")

    assert result.verified is None
    assert "not verified" in result.answer


async def test_all_edits_rejected_is_never_verified_and_runs_no_check(rig: Rig) -> None:
    marker = rig.root / "check-ran"
    check = f"{PY} -c \"open('check-ran', 'a').write('ran ')\""
    model = ScriptedModel.of(turn(FIX), answer("Nothing changed."))
    result = await rig.driver(model, RecordingReviewer(policy=reject_all), check=check).start("v-5")

    assert result.verified is None
    assert marker.read_text().split() == ["ran"]  # before the first turn only, for the model


async def test_unsaved_buffers_make_the_verdict_null(tmp_path: Path) -> None:
    async def unsaved(paths: Sequence[str]) -> Sequence[str]:
        return list(paths)

    verifier = ShellVerifier(f'{PY} -c "pass"', cwd=tmp_path, timeout=10, save_first=unsaved)
    outcome = await verifier.verify(["app.py"])
    assert outcome.passed and not outcome.trustworthy
    assert verified_from(outcome) is None
    assert "unsaved" in annotate_answer("Done.", outcome)


def test_verified_from_covers_every_case() -> None:
    def check(code: int | None, timed_out: bool = False) -> CheckOutcome:
        record = CheckRecord(
            command="c",
            exit_code=code,
            timed_out=timed_out,
            stdout_tail="",
            stderr_tail="",
            duration_ms=1.0,
        )
        return CheckOutcome(record=record)

    assert verified_from(None) is None
    assert verified_from(check(0)) is True
    assert verified_from(check(1)) is False
    assert verified_from(check(None, timed_out=True)) is False


def _outcome(stdout: str, exit_code: int | None, *, timed_out: bool = False) -> CheckOutcome:
    return CheckOutcome(
        CheckRecord(
            command="pytest -q", exit_code=exit_code, timed_out=timed_out, stdout_tail=stdout
        )
    )


def test_the_workspace_checks_report_counts_its_failing_tests() -> None:
    failing = "FAILED tests/test_x.py::test_a - assert 1 == 2\n2 failed, 3 passed in 0.12s\n"
    report = report_of(_outcome(failing, 1))

    assert report.failures == 2
    assert not report.passed
    assert "2 failed, 3 passed" in report.output


def test_the_model_is_shown_the_same_output_for_two_runs_of_the_same_failure() -> None:
    # The durations and addresses differ from run to run; the request must not (the server's
    # prompt cache, and reruns of the bench at a fixed seed).
    def run(took: str, address: str) -> str:
        return (
            f"FAILED tests/test_cart.py::test_total - assert <Cart object at {address}> == 3\n"
            f"========== 1 failed, 2 passed in {took} ==========\n"
        )

    first = report_of(_outcome(run("0.51s", "0x7f3a2c1b9d90"), 1))
    second = report_of(_outcome(run("12.30s (0:00:12)", "0x7f0011223344"), 1))

    assert first.output == second.output
    assert "========== 1 failed, 2 passed ==========" in first.output
    assert "<Cart object at 0x…>" in first.output
    assert first.failures == second.failures == 1


def test_a_check_whose_output_counts_no_tests_reports_none() -> None:
    linter = "calc.py:1:1: F401 [*] `os` imported but unused\nFound 1 error.\n"

    assert report_of(_outcome(linter, 1)).failures is None
    assert report_of(_outcome("", None, timed_out=True)).failures is None


async def test_a_coloured_pytest_run_is_counted_and_shown_as_text(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text(
        "def test_one():\n    assert 1 == 2\n\ndef test_two():\n    pass\n", encoding="utf-8"
    )
    command = f"{PY} -m pytest -q --color=yes -p no:cacheprovider test_a.py"
    outcome = await ShellVerifier(command, tmp_path, timeout=60).verify(["test_a.py"])
    report = report_of(outcome)

    assert report.failures == 1
    assert "\x1b" not in report.output
    assert "1 failed, 1 passed" in report.output
