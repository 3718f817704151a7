"""The exact-repeat guard warns, then blocks, then ends with a synthesis.

See docs/interface.md#repeat-guard.
"""

from __future__ import annotations

from itertools import count

from pydantic import BaseModel

from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.guards import record_repeat, repeat_blocked
from rune_lsp.loop.messages import Message
from rune_lsp.loop.prompts import FINAL_SYNTHESIS_INSTRUCTION
from rune_lsp.loop.state import Finished, ToolOutcome

from .fakes import FakeExecutor, ScriptedModel, answer, assert_paired, read, turn


def test_identical_results_count_up_and_a_changed_result_resets() -> None:
    repeats = record_repeat({}, "s", "h1")
    repeats = record_repeat(repeats, "s", "h1")
    assert repeats["s"].count == 2
    assert repeat_blocked(repeats, "s", block_at=3)
    assert not repeat_blocked(repeats, "s", block_at=4)
    repeats = record_repeat(repeats, "s", "h2")
    assert repeats["s"].count == 1
    assert not repeat_blocked(repeats, "s", block_at=3)
    assert not repeat_blocked(repeats, "other", block_at=3)


def tool_results(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.role == "tool"]


async def test_second_identical_result_warns_and_third_call_is_blocked(
    executor: FakeExecutor,
) -> None:
    model = ScriptedModel.of(
        turn(read("a.py")),
        turn(read("a.py")),
        turn(read("b.py"), read("a.py"), read("c.py")),
        answer("a.py holds the bug on line 3."),
    )
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    result = outcome.result
    assert result.outcome == "incomplete"
    assert result.error == "repeat guard: read_file blocked after 3 identical calls"
    assert executor.executed == [
        ("read_file", {"path": "a.py"}),
        ("read_file", {"path": "a.py"}),
        ("read_file", {"path": "b.py"}),
    ]
    results = tool_results(outcome.state.messages)
    assert "Note:" not in results[0].content
    assert "called 2 times with these exact arguments" in results[1].content
    assert results[3].content.startswith("Skipped: read_file was already called 2 times")
    assert results[4].content.startswith("Not run: the run stopped")
    assert [t.status for t in result.tool_calls] == ["ok", "ok", "ok", "skipped", "skipped"]
    assert_paired(outcome.state.messages)

    synthesis = model.calls[-1]
    assert synthesis.tools == []
    assert synthesis.messages[-1].content == FINAL_SYNTHESIS_INSTRUCTION
    assert result.iterations_used == 4
    assert result.answer == (
        "a.py holds the bug on line 3.\n\n"
        "Tool calls executed: read_file a.py, read_file a.py, read_file b.py; "
        "skipped: read_file a.py, read_file c.py."
    )


async def test_without_budget_left_the_answer_is_the_summary_alone(
    executor: FakeExecutor,
) -> None:
    model = ScriptedModel.of(*(turn(read("a.py")) for _ in range(3)))
    outcome = await AgentLoop(model, executor, LoopConfig(max_iterations=3)).run("task")
    assert isinstance(outcome, Finished)
    assert len(model.calls) == 3
    assert outcome.result.outcome == "incomplete"
    assert outcome.result.answer == (
        "Tool calls executed: read_file a.py, read_file a.py; skipped: read_file a.py."
    )


async def test_a_failing_synthesis_still_returns_the_summary(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(*(turn(read("a.py")) for _ in range(3)), RuntimeError("gone"))
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "incomplete"
    assert outcome.result.error == (
        "repeat guard: read_file blocked after 3 identical calls; "
        "the final synthesis failed: RuntimeError: gone"
    )
    assert outcome.result.answer.startswith("Tool calls executed:")


async def test_a_call_whose_result_changes_is_not_a_repeat() -> None:
    ticks = count()

    def changing(name: str, arguments: BaseModel) -> ToolOutcome:
        return ToolOutcome(status="ok", content=f"tick {next(ticks)}")

    executor = FakeExecutor(reader=changing)
    model = ScriptedModel.of(*(turn(read("log.txt")) for _ in range(5)), answer("stable"))
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "completed"
    assert len(executor.executed) == 5
    assert all("Note:" not in m.content for m in tool_results(outcome.state.messages))


async def test_thresholds_are_configurable(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(*(turn(read("a.py")) for _ in range(5)), answer("x"))
    config = LoopConfig(repeat_warn_at=3, repeat_block_at=5)
    outcome = await AgentLoop(model, executor, config).run("task")
    assert isinstance(outcome, Finished)
    results = tool_results(outcome.state.messages)
    assert ["Note:" in r.content for r in results] == [False, False, True, True, False]
    assert len(executor.executed) == 4
    assert outcome.result.error == "repeat guard: read_file blocked after 5 identical calls"
