"""Every way a run ends is a typed outcome; nothing escapes as an exception.

See docs/interface.md#stop-conditions.
"""

from __future__ import annotations

import asyncio

from rune_lsp.loop import AgentLoop, LoopConfig, ModelError
from rune_lsp.loop.messages import ModelTurn
from rune_lsp.loop.state import Approve, Finished, Landed, Paused, PreparedChange, ToolOutcome

from .fakes import (
    FakeExecutor,
    Hang,
    ScriptedModel,
    answer,
    approve_all,
    assert_paired,
    call,
    edit,
    read,
    turn,
)

#: Seconds to wait for an event the scripted model or executor sets at once: a guard against
#: a hang, never a speed target (it was 5 s; a loaded machine must not fail it).
HANG_GUARD = 60.0


async def finish(model: ScriptedModel, executor: FakeExecutor) -> Finished:
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task", run_id="r1")
    assert isinstance(outcome, Finished)
    return outcome


async def test_visible_text_completes(executor: FakeExecutor) -> None:
    outcome = await finish(ScriptedModel.of(turn(read("a")), answer("  Fixed it.  ")), executor)
    assert outcome.result.outcome == "completed"
    assert outcome.result.answer == "Fixed it."
    assert outcome.result.error is None
    assert outcome.result.run_id == "r1"
    assert outcome.result.verified is None and outcome.result.receipt is None


async def test_an_empty_answer_after_tools_is_incomplete(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(turn(read("a")), ModelTurn(text="  \n", thinking="hmm"))
    outcome = await finish(model, executor)
    assert outcome.result.outcome == "incomplete"
    assert outcome.result.error == "empty final answer after tool use"


async def test_an_empty_answer_without_tools_is_incomplete(executor: FakeExecutor) -> None:
    outcome = await finish(ScriptedModel.of(answer("")), executor)
    assert outcome.result.outcome == "incomplete"
    assert outcome.result.error == "the model returned an empty answer"


async def test_a_provider_error_fails_with_its_text(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(ModelError("model 'qwen3:14b' not found; run `ollama pull`"))
    outcome = await finish(model, executor)
    assert outcome.result.outcome == "failed"
    assert outcome.result.error == "model 'qwen3:14b' not found; run `ollama pull`"


async def test_an_unexpected_model_exception_fails_with_type_and_message(
    executor: FakeExecutor,
) -> None:
    outcome = await finish(ScriptedModel.of(ValueError("bad frame")), executor)
    assert outcome.result.outcome == "failed"
    assert outcome.result.error == "ValueError: bad frame"


async def test_an_executor_exception_is_that_calls_failed_result(executor: FakeExecutor) -> None:
    executor.raise_on_execute.add("search")
    model = ScriptedModel.of(
        turn(call("search", {"pattern": "x"}), read("a")),
        answer("ok"),
    )
    outcome = await finish(model, executor)
    assert outcome.result.outcome == "completed"
    assert [t.status for t in outcome.result.tool_calls] == ["failed", "ok"]
    result = next(m for m in outcome.state.messages if m.role == "tool")
    assert result.content == "Error: search failed: RuntimeError: search exploded"


async def test_cancelling_while_the_model_thinks_ends_cancelled(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(turn(read("a")), Hang(), answer("never"))
    task = asyncio.create_task(AgentLoop(model, executor, LoopConfig()).run("task"))
    await asyncio.wait_for(model.entered_hang.wait(), HANG_GUARD)
    task.cancel()
    outcome = await task
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "cancelled"
    assert outcome.result.iterations_used == 2
    assert len(model.calls) == 2
    assert len(executor.executed) == 1
    await asyncio.sleep(0)
    assert len(model.calls) == 2  # nothing ran after the cancellation


async def test_cancelling_during_a_tool_skips_the_rest_of_the_turn() -> None:
    executor = FakeExecutor()
    executor.hang_on_execute = True
    model = ScriptedModel.of(turn(read("a"), read("b")), answer("never"))
    task = asyncio.create_task(AgentLoop(model, executor, LoopConfig()).run("task"))
    await asyncio.wait_for(executor.execute_started.wait(), HANG_GUARD)
    task.cancel()
    outcome = await task
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "cancelled"
    assert len(executor.executed) == 1
    assert len(model.calls) == 1
    assert_paired(outcome.state.messages)
    assert [t.status for t in outcome.result.tool_calls] == ["skipped", "skipped"]


async def test_cancelling_a_resume_leaves_no_pending_edit_behind() -> None:
    executor = FakeExecutor()
    model = ScriptedModel.of(turn(edit("a.py")), Hang())
    loop = AgentLoop(model, executor, LoopConfig())
    paused = await loop.run("task")
    assert isinstance(paused, Paused)
    approve_all(paused.state)
    task = asyncio.create_task(loop.resume(paused.state))
    await asyncio.wait_for(model.entered_hang.wait(), HANG_GUARD)
    task.cancel()
    outcome = await task
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "cancelled"
    assert [e.status for e in outcome.result.edits] == ["applied"]


async def test_a_cancelled_resume_reports_what_the_editor_already_landed() -> None:
    executor = FakeExecutor()
    model = ScriptedModel.of(turn(edit("a.py"), edit("b.py"), edit("c.py")))
    loop = AgentLoop(model, executor, LoopConfig())
    paused = await loop.run("task", run_id="r1")
    assert isinstance(paused, Paused)
    paused.state.turn.decide("r1-edit-1", Approve())
    paused.state.turn.decide("r1-edit-2", Landed(status="applied"))
    paused.state.turn.decide("r1-edit-3", Approve())

    gate = asyncio.Event()
    original_apply = executor.apply

    async def slow_apply(change: PreparedChange) -> ToolOutcome:
        gate.set()
        await asyncio.Event().wait()
        return await original_apply(change)

    executor.apply = slow_apply  # type: ignore[method-assign]
    task = asyncio.create_task(loop.resume(paused.state))
    await asyncio.wait_for(gate.wait(), HANG_GUARD)
    task.cancel()
    outcome = await task
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "cancelled"
    assert [e.status for e in outcome.result.edits] == ["rejected", "applied", "rejected"]
    assert_paired(outcome.state.messages)
