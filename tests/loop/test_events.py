"""Typed progress events, from a sync or an async sink (docs/interface.md#progress)."""

from __future__ import annotations

from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.events import (
    ModelDelta,
    ModelTurnStarted,
    PendingApproval,
    RunEnded,
    RunEvent,
    ToolRequested,
    ToolResulted,
)
from rune_lsp.loop.messages import describe_call
from rune_lsp.loop.state import Finished

from .fakes import FakeExecutor, ScriptedModel, answer, edit, read, turn


def kinds(events: list[RunEvent]) -> list[str]:
    return [type(event).__name__ for event in events]


async def test_a_run_streams_its_steps(executor: FakeExecutor, events: list[RunEvent]) -> None:
    model = ScriptedModel.of(turn(read("src/app.py"), text="Reading."), answer("Done."))
    outcome = await AgentLoop(model, executor, LoopConfig(), on_event=events.append).run(
        "task", run_id="r1"
    )
    assert isinstance(outcome, Finished)
    assert kinds(events) == [
        "ModelTurnStarted",
        "ModelDelta",
        "ToolRequested",
        "ToolResulted",
        "ModelTurnStarted",
        "ModelDelta",
        "RunEnded",
    ]
    first = events[0]
    assert isinstance(first, ModelTurnStarted)
    assert first.step == "step 1/8" and first.run_id == "r1"
    assert isinstance(events[4], ModelTurnStarted) and events[4].step == "step 2/8"
    delta = events[1]
    assert isinstance(delta, ModelDelta) and delta.text == "Reading."
    requested = events[2]
    assert isinstance(requested, ToolRequested)
    assert f"{requested.step} · {describe_call(requested.call)}" == (
        "step 1/8 · read_file src/app.py"
    )
    resulted = events[3]
    assert isinstance(resulted, ToolResulted) and resulted.outcome.status == "ok"
    ended = events[-1]
    assert isinstance(ended, RunEnded) and ended.result == outcome.result


async def test_an_async_sink_is_awaited(executor: FakeExecutor) -> None:
    received: list[RunEvent] = []

    async def sink(event: RunEvent) -> None:
        received.append(event)

    model = ScriptedModel.of(turn(read("a")), answer("Done."))
    await AgentLoop(model, executor, LoopConfig(), on_event=sink).run("task")
    assert kinds(received) == [
        "ModelTurnStarted",
        "ToolRequested",
        "ToolResulted",
        "ModelTurnStarted",
        "ModelDelta",
        "RunEnded",
    ]


async def test_a_pause_is_announced(executor: FakeExecutor, events: list[RunEvent]) -> None:
    model = ScriptedModel.of(turn(edit("a.py")))
    await AgentLoop(model, executor, LoopConfig(), on_event=events.append).run("task")
    assert isinstance(events[-1], PendingApproval)
    assert events[-1].step == "step 1/8"
    assert not any(isinstance(e, RunEnded) for e in events)


async def test_a_failing_sink_does_not_end_the_run(executor: FakeExecutor) -> None:
    def broken(event: RunEvent) -> None:
        raise RuntimeError("progress channel closed")

    async def broken_async(event: RunEvent) -> None:
        raise RuntimeError("progress channel closed")

    for sink in (broken, broken_async):
        model = ScriptedModel.of(turn(read("a")), answer("Done."))
        outcome = await AgentLoop(model, executor, LoopConfig(), on_event=sink).run("task")
        assert isinstance(outcome, Finished)
        assert outcome.result.outcome == "completed"
