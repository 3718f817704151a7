"""The circuit breaker on one call signature failing twice in a row.

See docs/interface.md#circuit-breaker.
"""

from __future__ import annotations

import json

from pydantic import BaseModel

from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.guards import breaker_error, breaker_tripped, update_streaks
from rune_lsp.loop.normalize import call_signature
from rune_lsp.loop.state import Finished, Paused, RunState, ToolOutcome

from .fakes import (
    FakeExecutor,
    ReadFileArgs,
    ScriptedModel,
    answer,
    approve_all,
    assert_paired,
    edit,
    read,
    turn,
)

FAIL = ToolOutcome(status="failed", content="no such file")
DENIED = ToolOutcome(status="denied", content="Access denied")
OK = ToolOutcome(status="ok", content="text")


def test_two_failures_of_one_signature_trip() -> None:
    streaks = update_streaks({}, "s", FAIL)
    assert not breaker_tripped(streaks, "s")
    streaks = update_streaks(streaks, "s", DENIED)
    assert breaker_tripped(streaks, "s")


def test_a_success_resets_the_streak() -> None:
    streaks = update_streaks(update_streaks({}, "s", FAIL), "s", OK)
    assert "s" not in streaks
    assert not breaker_tripped(update_streaks(streaks, "s", FAIL), "s")


def test_other_signatures_keep_their_own_streaks() -> None:
    streaks = update_streaks(update_streaks({}, "a", FAIL), "b", FAIL)
    assert not breaker_tripped(streaks, "a") and not breaker_tripped(streaks, "b")
    streaks = update_streaks(update_streaks(streaks, "b", OK), "a", FAIL)
    assert breaker_tripped(streaks, "a")


def test_skips_and_user_rejections_leave_a_streak_alone() -> None:
    rejected = ToolOutcome(status="denied", content="no", edit_status="rejected")
    skipped = ToolOutcome(status="skipped", content="not run")
    streaks = update_streaks({}, "s", FAIL)
    assert update_streaks(update_streaks(streaks, "s", rejected), "s", skipped) == {"s": 1}


def test_the_error_text_is_exact() -> None:
    assert breaker_error("read_file") == (
        "tool read_file failed 2 consecutive times with identical arguments"
    )


def failing_reader(name: str, arguments: BaseModel) -> ToolOutcome:
    assert isinstance(arguments, ReadFileArgs)
    if arguments.path.startswith("missing"):
        return ToolOutcome(status="failed", content=f"{arguments.path}: no such file")
    return ToolOutcome(status="ok", content="text")


async def test_a_read_failing_twice_stops_the_run() -> None:
    executor = FakeExecutor(reader=failing_reader)
    model = ScriptedModel.of(
        turn(read("missing.py")), turn(read("missing.py"), read("ok.py")), answer()
    )
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "failed"
    assert outcome.result.error == (
        "tool read_file failed 2 consecutive times with identical arguments"
    )
    assert len(model.calls) == 2
    assert executor.executed == [("read_file", {"path": "missing.py"})] * 2  # ok.py never ran
    assert_paired(outcome.state.messages)
    assert [t.status for t in outcome.result.tool_calls] == ["failed", "failed", "skipped"]
    assert outcome.state.failure_streaks[call_signature("read_file", {"path": "missing.py"})] == 2


async def test_a_success_in_between_keeps_the_run_going() -> None:
    calls = {"n": 0}

    def flaky(name: str, arguments: BaseModel) -> ToolOutcome:
        calls["n"] += 1
        return OK if calls["n"] == 2 else FAIL

    model = ScriptedModel.of(turn(read("a")), turn(read("a")), turn(read("a")), answer("ok"))
    outcome = await AgentLoop(model, FakeExecutor(reader=flaky), LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "completed"


async def test_other_arguments_do_not_break_a_streak() -> None:
    executor = FakeExecutor(reader=failing_reader)
    model = ScriptedModel.of(
        turn(read("missing_a")), turn(read("missing_b")), turn(read("missing_a")), answer()
    )
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "failed"
    assert len(model.calls) == 3  # a, b: no trip; a again: its second failure in a row


async def test_invalid_arguments_twice_trip_the_breaker(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(*(turn(read(1)) for _ in range(2)), answer())  # type: ignore[arg-type]
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert outcome.result.error == breaker_error("read_file")
    assert executor.executed == []
    assert len(model.calls) == 2


async def test_failures_after_approval_count_too(executor: FakeExecutor) -> None:
    executor.stale.add("/ws/a.py")
    loop = AgentLoop(
        ScriptedModel.of(turn(edit("a.py")), turn(edit("a.py"))), executor, LoopConfig()
    )
    first = await loop.run("task")
    assert isinstance(first, Paused)
    approve_all(first.state)
    second = await loop.resume(first.state)
    assert isinstance(second, Paused)
    approve_all(second.state)
    final = await loop.resume(second.state)
    assert isinstance(final, Finished)
    assert final.result.outcome == "failed"
    assert final.result.error == breaker_error("edit_file")
    assert [e.status for e in final.result.edits] == ["stale", "stale"]


async def test_a_trip_in_a_turn_with_a_proposed_change_ends_the_run_without_review() -> None:
    def always_fails(name: str, arguments: BaseModel) -> ToolOutcome:
        return FAIL

    executor = FakeExecutor(reader=always_fails)
    model = ScriptedModel.of(turn(read("m")), turn(edit("a.py"), read("m")), answer())
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "failed"
    assert outcome.result.error == breaker_error("read_file")
    assert outcome.result.edits == ()
    assert executor.applied == []
    assert outcome.state.turn.pending == []
    assert [t.status for t in outcome.result.tool_calls] == ["failed", "skipped", "failed"]
    assert_paired(outcome.state.messages)


def test_a_state_saved_with_the_former_breaker_field_still_loads() -> None:
    saved = RunState(run_id="r1", iteration_budget=8, failure_streaks={"s": 2})
    data = saved.model_dump(mode="json") | {"breaker": {"signature": "s", "failures": 2}}
    assert RunState.model_validate_json(json.dumps(data)) == saved
