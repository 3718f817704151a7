"""Identical calls in one model turn run once; every id still gets its result.

See docs/interface.md#every-call-gets-one-result.
"""

from __future__ import annotations

from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.guards import first_occurrences
from rune_lsp.loop.state import Finished, Paused

from .fakes import (
    FakeExecutor,
    ScriptedModel,
    answer,
    approve_all,
    assert_paired,
    call,
    edit,
    read,
    turn,
)


def test_first_occurrences_points_duplicates_at_the_first() -> None:
    assert first_occurrences(["a", "b", "a", None, None, "b", "a"]) == [
        None,
        None,
        0,
        None,
        None,
        1,
        0,
    ]


async def test_identical_calls_run_once_and_each_id_gets_the_result(
    executor: FakeExecutor,
) -> None:
    model = ScriptedModel.of(
        turn(
            call("read_file", {"path": "a.py", "start_line": 1}),
            call("read_file", '{"start_line": 1, "path": "a.py"}'),  # same, spelled otherwise
            call("read_file", {"path": "a.py", "start_line": 2}),
        ),
        answer(),
    )
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert executor.executed == [
        ("read_file", {"path": "a.py", "start_line": 1}),
        ("read_file", {"path": "a.py", "start_line": 2}),
    ]
    assert_paired(outcome.state.messages)
    results = [m for m in outcome.state.messages if m.role == "tool"]
    assert results[1].content.startswith(results[0].content)
    assert "Identical to call call_1 in this turn" in results[1].content
    assert len(outcome.result.tool_calls) == 3


async def test_the_same_call_in_later_turns_is_not_deduplicated(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(turn(read("a.py")), turn(read("a.py")), answer())
    await AgentLoop(model, executor, LoopConfig()).run("task")
    assert len(executor.executed) == 2


async def test_identical_edits_make_one_pending_change(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(turn(edit("a.py"), read("b.py"), edit("a.py")), answer())
    loop = AgentLoop(model, executor, LoopConfig())
    paused = await loop.run("task")
    assert isinstance(paused, Paused)
    assert len(paused.state.turn.pending) == 1
    assert len(paused.state.edits) == 1
    approve_all(paused.state)
    finished = await loop.resume(paused.state)
    assert isinstance(finished, Finished)
    assert len(executor.applied) == 1
    assert_paired(finished.state.messages)
    results = [m for m in finished.state.messages if m.role == "tool"]
    assert results[0].content == "Applied to /ws/a.py."
    assert "Identical to call call_1" in results[2].content
    assert [t.status for t in finished.result.tool_calls] == ["ok", "ok", "ok"]
