"""Item 8 of issue 14: arguments count against the history budget, and a turn's calls are capped."""

from __future__ import annotations

from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.context_budget import (
    KEPT_ARGUMENT_CHARS,
    argument_elision_note,
    fit_history,
    history_budget,
    history_tokens,
)
from rune_lsp.loop.messages import Message, ToolCall
from rune_lsp.loop.normalize import MAX_CALLS_PER_TURN, canonical_json, over_cap_note
from rune_lsp.loop.state import Finished, Paused, Reject

from .fakes import FakeExecutor, ScriptedModel, answer, assert_paired, edit, read, turn

MEGABYTE = "x" * 1_000_000


def _with_one_big_call() -> list[Message]:
    big = ToolCall(
        id="call_1",
        name="edit_file",
        arguments={"path": "a.py", "old_text": "a", "new_text": MEGABYTE},
    )
    small = ToolCall(id="call_2", name="read_file", arguments={"path": "b.py"})
    return [
        Message(role="system", content="S"),
        Message(role="user", content="U"),
        Message(role="assistant", content="Rewriting.", tool_calls=(big,)),
        Message(role="tool", content="rejected", tool_call_id="call_1", name="edit_file"),
        Message(role="assistant", tool_calls=(small,)),
        Message(role="tool", content="b", tool_call_id="call_2", name="read_file"),
    ]


def test_arguments_count_in_the_history_and_long_ones_are_elided() -> None:
    messages = _with_one_big_call()
    assert history_tokens(messages) > 250_000  # the megabyte is counted
    budget = history_budget(32_768)
    fitted = fit_history(messages, budget)
    assert history_tokens(fitted) <= budget
    # Pairs, ids, names and the short arguments stay; the model is told what was left out.
    assert [(m.role, m.tool_call_id) for m in fitted] == [
        (m.role, m.tool_call_id) for m in messages
    ]
    slim = fitted[2].tool_calls[0]
    assert (slim.id, slim.name) == ("call_1", "edit_file")
    assert slim.arguments == {
        "path": "a.py",
        "old_text": "a",
        "new_text": argument_elision_note("new_text", len(canonical_json(MEGABYTE))),
    }
    assert slim.arguments["new_text"].startswith("[elided: 1000002 chars of new_text")
    assert fitted[4:] == messages[4:]  # nothing newer was touched


def test_argument_values_up_to_the_kept_length_are_never_elided() -> None:
    kept = "k" * (KEPT_ARGUMENT_CHARS - 2)  # as JSON: the quotes make it exactly the limit
    call = ToolCall(id="c", name="edit_file", arguments={"path": "a", "new_text": kept})
    messages = [
        Message(role="system", content="S"),
        Message(role="user", content="U"),
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", content="ok", tool_call_id="c", name="edit_file"),
    ]
    assert fit_history(messages, 1)[2] == messages[2]


async def test_a_rejected_megabyte_is_not_resent_with_every_request() -> None:
    model = ScriptedModel.of(
        turn(edit("a.py", new=MEGABYTE)), turn(read("b.py")), answer(), context_length=32_768
    )
    executor = FakeExecutor()
    loop = AgentLoop(model, executor, LoopConfig())
    paused = await loop.run("task", run_id="r1")
    assert isinstance(paused, Paused)
    paused.state.turn.decide("r1-edit-1", Reject(reason="too big"))
    outcome = await loop.resume(paused.state)
    assert isinstance(outcome, Finished)
    for later in model.calls[1:]:
        sent = sum(len(m.content) + len(canonical_json(m.tool_calls)) for m in later.messages)
        assert sent < history_budget(32_768) * 4  # characters, at about 4 a token
        assert "[elided: 1000002 chars of new_text" in canonical_json(later.messages[2].tool_calls)
    # The run's own record keeps what the model sent.
    assert outcome.state.messages[2].tool_calls[0].arguments["new_text"] == MEGABYTE


async def test_calls_past_the_per_turn_cap_are_paired_as_skipped(executor: FakeExecutor) -> None:
    count = MAX_CALLS_PER_TURN + 284
    model = ScriptedModel.of(turn(*(edit(f"f{n}.py") for n in range(count))))
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Paused)
    assert len(outcome.state.turn.pending) == MAX_CALLS_PER_TURN  # reviews, not 300
    assert [change.path for change in executor.prepared] == [
        f"/ws/f{n}.py" for n in range(MAX_CALLS_PER_TURN)
    ]
    for edit_id in [change.edit_id for change in outcome.state.turn.pending]:
        outcome.state.turn.decide(edit_id, Reject())
    finished = await AgentLoop(ScriptedModel.of(answer()), executor, LoopConfig()).resume(
        outcome.state
    )
    assert isinstance(finished, Finished)
    assert_paired(finished.state.messages)
    assert [t.status for t in finished.result.tool_calls] == ["denied"] * MAX_CALLS_PER_TURN + [
        "skipped"
    ] * (count - MAX_CALLS_PER_TURN)  # a rejected change reads as denied
    results = [m for m in finished.state.messages if m.role == "tool"]
    assert results[-1].content == (
        f"Not run (skipped: at most {MAX_CALLS_PER_TURN} tool calls run per turn; this turn "
        f"made {count}). Make the calls you still need in your next turn."
    )


async def test_thirty_thousand_calls_in_one_turn_are_not_resent(executor: FakeExecutor) -> None:
    count = 30_000
    model = ScriptedModel.of(turn(*(read(f"f{n}.py") for n in range(count))), answer())
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert len(executor.executed) == MAX_CALLS_PER_TURN
    assert_paired(outcome.state.messages)  # the run's record pairs every call
    assert [t.status for t in outcome.result.tool_calls].count("skipped") == (
        count - MAX_CALLS_PER_TURN
    )
    # The next request shows the calls that ran and one skipped pair saying why: 7.6 MB before.
    shown = model.calls[1].messages
    assert_paired(shown)
    assert len(shown[2].tool_calls) == MAX_CALLS_PER_TURN + 1
    assert shown[-1].content == over_cap_note(count)
    assert len(canonical_json([m.model_dump() for m in shown])) < 10_000
