"""The run driver: review one change at a time, persist before asking, receipts, cancel."""

from __future__ import annotations

import asyncio
import contextlib
import json

from rune_lsp.loop.records import RunResult
from rune_lsp.loop.state import Approve, Decision, PreparedChange, RunState
from rune_lsp.runner.driver import RunDriver, StopReason
from tests.loop.fakes import Hang, ScriptedModel, answer, call, edit, turn
from tests.runner.conftest import RecordingReviewer, Rig, reject_all

FIX = edit("calc.py", old="return a - b", new="return a + b")


async def test_an_accepted_edit_lands_and_the_receipt_records_it(rig: Rig) -> None:
    model = ScriptedModel.of(turn(FIX), answer("Changed - to +."))
    result = await rig.driver(model).start("run-1")

    assert result.outcome == "completed"
    assert [(e.tool, e.status) for e in result.edits] == [("edit_file", "applied")]
    assert (rig.root / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert result.verified is None  # no check configured: no claim
    assert result.receipt == str(rig.receipts.receipt_path("run-1"))
    stored = json.loads((rig.state_dir / "receipts" / "run-1.json").read_text())
    assert stored["result"]["outcome"] == "completed"
    assert "+    return a + b" in stored["edits"][0]["diff"]
    markdown = (rig.state_dir / "receipts" / "run-1.md").read_text()
    assert "completed" in markdown and "return a + b" in markdown
    assert rig.pending.load("run-1") is None  # a finished run leaves no pending state


async def test_a_rejected_edit_leaves_the_disk_alone(rig: Rig) -> None:
    reviewer = RecordingReviewer(policy=reject_all)
    model = ScriptedModel.of(turn(FIX), answer("Left it."))
    result = await rig.driver(model, reviewer).start("run-2")

    assert [e.status for e in result.edits] == ["rejected"]
    assert (rig.root / "calc.py").read_text().endswith("a - b\n")
    told = model.calls[1].messages[-1].content
    assert "rejected" in told


async def test_pending_state_is_persisted_before_the_reviewer_is_asked(rig: Rig) -> None:
    seen_on_disk: list[bool] = []

    def policy(change: PreparedChange) -> Decision:
        record = rig.pending.load("run-3")
        seen_on_disk.append(record is not None and bool(record.state.turn.pending))
        return Approve()

    model = ScriptedModel.of(turn(FIX), answer("ok"))
    await rig.driver(model, RecordingReviewer(policy=policy)).start("run-3")
    assert seen_on_disk == [True]


class Never(RecordingReviewer):
    """A review nobody answers; `asked` is set once it is open."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = asyncio.Event()

    async def decide(self, change: PreparedChange, state: RunState) -> Decision:
        self.asked.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


async def test_an_interrupted_run_keeps_its_pause_for_resume(rig: Rig) -> None:
    reviewer = Never()
    # As the server runs it: a cancel nobody asked for is an interruption.
    driver = rig.driver(ScriptedModel.of(turn(FIX)), reviewer, cancel_means="interrupt")
    task = asyncio.create_task(driver.start("run-4"))
    await reviewer.asked.wait()
    task.cancel()
    result = await task

    assert result.outcome == "cancelled"
    assert result.error is not None and "rune.resume" in result.error
    record = rig.pending.load("run-4")
    assert record is not None and [p.tool for p in record.state.turn.pending] == ["edit_file"]


async def test_resume_from_disk_after_a_crash(rig: Rig) -> None:
    model = ScriptedModel.of(turn(FIX), answer("Fixed after the restart."))
    paused = await rig.driver(model).loop.run("Fix the bug.", run_id="run-5")
    state = paused.state
    rig.driver(model)._persist(state)  # what the dead server left behind

    record = rig.pending.load("run-5")
    assert record is not None
    fresh = RunState.model_validate_json(record.state.model_dump_json())
    result = await rig.driver(model).resume(fresh)

    assert result.outcome == "completed"
    assert result.iterations_used == 2
    assert [e.status for e in result.edits] == ["applied"]
    assert (rig.root / "calc.py").read_text().endswith("a + b\n")
    assert rig.pending.load("run-5") is None


async def test_cancel_during_review_withdraws_and_still_writes_a_receipt(rig: Rig) -> None:
    reviewer = Never()
    task = asyncio.create_task(rig.driver(ScriptedModel.of(turn(FIX)), reviewer).start("run-6"))
    await reviewer.asked.wait()
    assert rig.pending.load("run-6") is not None
    task.cancel()
    result = await task

    assert result.outcome == "cancelled"
    assert result.iterations_used == 1 and result.iteration_budget == 6
    assert [e.status for e in result.edits] == ["pending"]
    assert reviewer.withdrawn
    assert (rig.root / "calc.py").read_text().endswith("a - b\n")
    assert (rig.state_dir / "receipts" / "run-6.json").exists()
    assert rig.pending.load("run-6") is None  # cancelled on purpose: nothing to resume


async def test_the_api_key_never_reaches_the_receipt(rig: Rig) -> None:
    secret = "sk-test-0123456789abcdef"
    model = ScriptedModel.of(turn(call("read_file", {"path": "calc.py"})), answer(secret))
    result = await rig.driver(model, secrets=(secret,)).start("run-7")
    assert result.receipt is not None
    for path in (rig.state_dir / "receipts").iterdir():
        assert secret not in path.read_text()


def test_a_run_cancelled_before_it_started_reports_its_budget(rig: Rig) -> None:
    result = rig.driver(ScriptedModel.of(answer("never asked"))).not_started("run-8")

    assert result.outcome == "cancelled"
    assert (result.iterations_used, result.iteration_budget) == (0, 6)
    assert result.error is not None
    # Like every run, it leaves a receipt that says how it ended.
    assert result.receipt == str(rig.state_dir / "receipts" / "run-8.json")
    stored = json.loads((rig.state_dir / "receipts" / "run-8.json").read_text())
    assert stored["result"]["outcome"] == "cancelled"


async def test_a_run_superseded_before_it_started_says_so(rig: Rig) -> None:
    driver = rig.driver(ScriptedModel.of(answer("never asked")))
    task = driver.launch("run-9")
    assert driver.stop("supersede")
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert task.cancelled()  # stopped before its first step: nothing ran
    result = driver.not_started("run-9")

    assert (result.outcome, result.error) == (
        "superseded",
        "a newer run on this document replaced it",
    )
    assert (rig.state_dir / "receipts" / "run-9.json").exists()


async def test_a_run_cancelled_after_an_applied_edit_runs_no_check(rig: Rig) -> None:
    model = ScriptedModel.of(turn(FIX), Hang())
    driver = rig.driver(model, check="echo ran >> checked")
    task = asyncio.create_task(driver.start("run-10"))
    await model.entered_hang.wait()
    task.cancel()
    result = await task

    assert result.outcome == "cancelled"
    assert [e.status for e in result.edits] == ["applied"]
    assert (rig.root / "calc.py").read_text().endswith("a + b\n")
    assert result.verified is None
    # The check fed the loop (before the first turn, after the edit), but no verification
    # ran after the cancel: a cancelled run makes no claim.
    assert (rig.root / "checked").read_text().split() == ["ran", "ran"]
    stored = json.loads((rig.state_dir / "receipts" / "run-10.json").read_text())
    assert stored["check"] is None


class AllAtOnce(RecordingReviewer):
    """Answers nothing until every change of the turn is open, then in reverse order: what
    a mode-B user resolving the last diagnostic first does."""

    def __init__(self, expected: int) -> None:
        super().__init__()
        self.expected = expected
        self.answered: list[str] = []
        self._turns: dict[str, asyncio.Event] = {}

    async def decide(self, change: PreparedChange, state: RunState) -> Decision:
        self.seen.append(change)
        self._turns[change.edit_id] = asyncio.Event()
        if len(self.seen) == self.expected:
            self._turns[self.seen[-1].edit_id].set()
        await self._turns[change.edit_id].wait()
        self.answered.append(change.edit_id)
        earlier = [c for c in self.seen if not self._turns[c.edit_id].is_set()]
        if earlier:
            self._turns[earlier[-1].edit_id].set()
        return Approve()


async def test_concurrent_reviews_are_all_open_before_any_is_answered(rig: Rig) -> None:
    (rig.root / "other.py").write_text("x = 1\n", encoding="utf-8")
    second = edit("other.py", old="x = 1", new="x = 2")
    reviewer = AllAtOnce(expected=2)
    driver = rig.driver(ScriptedModel.of(turn(FIX, second), answer("Both.")), reviewer)
    driver.concurrent_reviews = True
    result = await asyncio.wait_for(driver.start("run-10"), 60)  # a hang guard, not a target

    assert [e.status for e in result.edits] == ["applied", "applied"]
    assert reviewer.answered == [c.edit_id for c in reversed(reviewer.seen)]
    assert (rig.root / "other.py").read_text() == "x = 2\n"
    assert rig.pending.load("run-10") is None


async def open_review(
    rig: Rig, run_id: str, cancel_means: StopReason = "cancel"
) -> tuple[RunDriver, Never, asyncio.Task[RunResult]]:
    """A launched run waiting for a review nobody answers."""
    reviewer = Never()
    driver = rig.driver(ScriptedModel.of(turn(FIX)), reviewer, cancel_means=cancel_means)
    task = driver.launch(run_id)
    await reviewer.asked.wait()
    assert rig.pending.load(run_id) is not None
    return driver, reviewer, task


async def test_stop_cancel_ends_the_run_with_nothing_left_to_resume(rig: Rig) -> None:
    # Even where an unexplained cancel would keep the pause (the server's drivers).
    driver, reviewer, task = await open_review(rig, "run-s1", cancel_means="interrupt")

    assert driver.stop("cancel")
    result = await task

    assert (result.outcome, result.error) == ("cancelled", "the run was cancelled")
    assert [e.status for e in result.edits] == ["pending"]
    assert reviewer.withdrawn
    assert rig.pending.load("run-s1") is None
    assert not driver.stop("cancel")  # it has ended: nothing to stop


async def test_stop_supersede_says_superseded_in_the_result_and_the_receipt(rig: Rig) -> None:
    driver, _, task = await open_review(rig, "run-s2", cancel_means="interrupt")

    assert driver.stop("supersede")
    result = await task

    assert (result.outcome, result.error) == (
        "superseded",
        "a newer run on this document replaced it",
    )
    stored = json.loads((rig.state_dir / "receipts" / "run-s2.json").read_text())
    assert stored["result"]["outcome"] == "superseded"
    assert rig.pending.load("run-s2") is None


async def test_stop_interrupt_keeps_the_open_review_for_resume(rig: Rig) -> None:
    driver, _, task = await open_review(rig, "run-s3")

    assert driver.stop("interrupt")
    result = await task

    assert result.outcome == "cancelled"
    assert result.error == "interrupted with a review open; continue it with rune.resume run-s3"
    record = rig.pending.load("run-s3")
    assert record is not None and [p.tool for p in record.state.turn.pending] == ["edit_file"]


async def test_the_first_reason_given_stands(rig: Rig) -> None:
    driver, _, task = await open_review(rig, "run-s4")

    assert driver.stop("cancel")
    assert driver.stop("interrupt")  # e.g. the server shuts down while the cancel lands
    result = await task

    assert result.error == "the run was cancelled"
    assert rig.pending.load("run-s4") is None


def test_a_driver_that_was_never_launched_has_nothing_to_stop(rig: Rig) -> None:
    assert not rig.driver(ScriptedModel.of(answer())).stop("cancel")
