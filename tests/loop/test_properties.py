"""Random model turns never break the loop's invariants.

Whatever the model sends (unknown tools, garbage arguments, missing or duplicate ids, text-protocol
fragments, provider errors) and however the user decides, the run ends with a typed outcome
inside its budget, and every call the model made has exactly one result, in order.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, get_args

from hypothesis import event, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from rune_lsp.loop import AgentLoop, LoopConfig, ModelError, ToolsUnsupportedError
from rune_lsp.loop.events import ModelTurnStarted, RunEvent
from rune_lsp.loop.messages import ModelTurn, RawToolCall
from rune_lsp.loop.records import Outcome
from rune_lsp.loop.state import (
    Approve,
    Decision,
    Finished,
    Landed,
    Paused,
    Reject,
    RunState,
    ToolOutcome,
)

from .fakes import TOOL_NAMES, FakeExecutor, ReadFileArgs, ScriptedModel, ScriptStep, assert_paired

PATHS = ("a.py", "b.py", "missing.py")

well_formed = st.one_of(
    st.sampled_from(PATHS).map(lambda p: ("read_file", {"path": p})),
    st.sampled_from(PATHS).map(
        lambda p: ("edit_file", {"path": p, "old_text": "a", "new_text": "b"})
    ),
    st.just(("run_command", {"command": "make test"})),
    st.just(("search", {"pattern": "TODO"})),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
garbage_arguments = st.one_of(
    st.none(),
    st.text(max_size=12),
    st.lists(st.integers(), max_size=3),
    st.integers(),
    st.floats(allow_nan=False),
    st.dictionaries(st.text(max_size=6), json_values, max_size=3),
)
names = st.sampled_from((*TOOL_NAMES, "unknown_tool", "", "READ_FILE"))
ids = st.one_of(st.none(), st.sampled_from(("call_1", "call_2", "x", "dup")), st.text(max_size=4))
good_calls = st.builds(
    lambda named, as_string, call_id: RawToolCall(
        id=call_id, name=named[0], arguments=json.dumps(named[1]) if as_string else named[1]
    ),
    well_formed,
    st.booleans(),
    ids,
)
bad_calls = st.builds(RawToolCall, id=ids, name=names, arguments=garbage_arguments)
raw_calls = st.one_of(good_calls, good_calls, good_calls, bad_calls)
text_fragments = st.sampled_from(
    (
        "",
        "Looking at it.",
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>',
        '<tool_call>{"name": "edit_file", "arguments": {"path": "b.py"',
        '```json\n{"name": "search", "arguments": {"pattern": "x"}}\n```',
        "<tool_call>not json</tool_call>",
    )
)
turns = st.builds(
    lambda calls, parts: ModelTurn(text=" ".join(parts), tool_calls=tuple(calls)),
    st.lists(raw_calls, max_size=4),
    st.lists(text_fragments, max_size=3),
)
errors = st.sampled_from((ModelError("provider down"), ToolsUnsupportedError("no tools")))
scripts: st.SearchStrategy[list[ScriptStep]] = st.builds(
    lambda steps, failure: (
        [*steps[: failure[1]], failure[0], *steps[failure[1] :]] if failure else steps
    ),
    st.lists(turns, max_size=8),
    st.none() | st.none() | st.none() | st.tuples(errors, st.integers(0, 8)),
)
decisions: st.SearchStrategy[Decision] = st.one_of(
    st.just(Approve()),
    st.builds(Reject, reason=st.text(max_size=8)),
    st.builds(
        Landed,
        status=st.sampled_from(("applied", "partial", "rejected", "stale", "denied")),
        detail=st.text(max_size=8),
    ),
)


def reader(name: str, args: BaseModel) -> ToolOutcome:
    if isinstance(args, ReadFileArgs) and args.path == "missing.py":
        return ToolOutcome(status="failed", content="missing.py: no such file")
    return ToolOutcome(status="ok", content=f"{name}: {args.model_dump_json()}")


async def drive(
    script: list[ScriptStep],
    native: bool,
    budget: int,
    stale: bool,
    draw: st.DataObject,
    events: list[RunEvent],
) -> Finished:
    model = ScriptedModel(script=script, native_tools=native)
    executor = FakeExecutor(reader=reader)
    if stale:
        executor.stale.add("/ws/b.py")
    config = LoopConfig(max_iterations=budget)
    outcome = await AgentLoop(model, executor, config, on_event=events.append).run("task")
    while isinstance(outcome, Paused):
        for change in outcome.state.turn.pending:
            outcome.state.turn.decide(change.edit_id, draw.draw(decisions))
        state = RunState.model_validate_json(outcome.state.model_dump_json())
        # A new loop per resumption, as a restarted server would build.
        outcome = await AgentLoop(model, executor, config, on_event=events.append).resume(state)
    return outcome


@settings(max_examples=150, deadline=None)
@given(
    script=scripts,
    native=st.booleans(),
    budget=st.integers(min_value=1, max_value=8),
    stale=st.booleans(),
    draw=st.data(),
)
def test_random_turns_keep_every_invariant(
    script: list[ScriptStep], native: bool, budget: int, stale: bool, draw: st.DataObject
) -> None:
    events: list[RunEvent] = []
    finished = asyncio.run(drive(script, native, budget, stale, draw, events))

    result, state = finished.result, finished.state
    event(f"outcome: {result.outcome}")
    event(f"paused: {any(e.kind == 'pending_approval' for e in events)}")
    assert result.outcome in get_args(Outcome)
    assert result.iterations_used <= budget
    assert result.iteration_budget == budget
    assert_paired(state.messages)
    tool_messages = [m for m in state.messages if m.role == "tool"]
    assert len(result.tool_calls) == len(tool_messages)
    assert [r.call_id for r in state.call_log] == [m.tool_call_id for m in tool_messages]
    assert state.turn.calls == [] and state.turn.pending == []
    assert all(edit.status != "pending" for edit in result.edits)
    if result.outcome == "completed":
        assert result.answer.strip()
    started = [e for e in events if isinstance(e, ModelTurnStarted)]
    assert all(1 <= e.iterations_used <= budget for e in started)
    assert _json_safe(result.model_dump(by_alias=True))


def _json_safe(value: Any) -> bool:
    json.dumps(value)
    return True
