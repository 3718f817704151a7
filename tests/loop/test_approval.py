"""Read-only calls run at once; mutating calls pause the run for review.

See docs/interface.md#tools-the-model-sees.
"""

from __future__ import annotations

import pytest

from rune_lsp.loop import (
    AgentLoop,
    LoopConfig,
    ResumeError,
)
from rune_lsp.loop.events import PendingApproval, RunEvent
from rune_lsp.loop.messages import Message
from rune_lsp.loop.state import (
    Approve,
    Finished,
    Landed,
    Paused,
    PreparedCommand,
    PreparedEdit,
    Reject,
    RunState,
    ToolOutcome,
)

from .fakes import (
    FakeExecutor,
    ScriptedModel,
    answer,
    approve_all,
    assert_paired,
    call,
    edit,
    read,
    reject_all,
    turn,
)


async def pause_on(executor: FakeExecutor, *calls: object) -> tuple[AgentLoop, Paused]:
    model = ScriptedModel.of(turn(*calls, text="Renaming x."), answer("Done."))  # type: ignore[arg-type]
    loop = AgentLoop(model, executor, LoopConfig())
    outcome = await loop.run("task", run_id="r1")
    assert isinstance(outcome, Paused)
    return loop, outcome


def results_of(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.role == "tool"]


async def test_read_only_runs_at_once_and_mutating_pauses(executor: FakeExecutor) -> None:
    events: list[RunEvent] = []
    model = ScriptedModel.of(turn(read("a.py"), edit("a.py", "x", "y")))
    outcome = await AgentLoop(model, executor, LoopConfig(), on_event=events.append).run(
        "task", run_id="r1"
    )
    assert isinstance(outcome, Paused)
    assert executor.executed == [("read_file", {"path": "a.py"})]
    assert executor.applied == []
    (change,) = outcome.state.turn.pending
    assert isinstance(change, PreparedEdit)
    assert (change.edit_id, change.call_id, change.path) == ("r1-edit-1", "call_2", "/ws/a.py")
    assert change.reason == ""
    assert [(e.edit_id, e.path, e.status) for e in outcome.state.edits] == [
        ("r1-edit-1", "/ws/a.py", "pending")
    ]
    assert isinstance(events[-1], PendingApproval)
    assert events[-1].pending == (change,)
    assert list(outcome.state.turn.results) == ["call_1"]


async def test_the_models_words_are_the_reason_shown_to_the_reviewer(
    executor: FakeExecutor,
) -> None:
    _, paused = await pause_on(executor, edit("a.py"))
    assert paused.state.turn.pending[0].reason == "Renaming x."


async def test_state_round_trips_and_resumes_in_a_fresh_loop(executor: FakeExecutor) -> None:
    _, paused = await pause_on(
        executor, read("a.py"), edit("a.py"), call("run_command", {"command": "pytest -q"})
    )
    wire = paused.state.model_dump_json()
    restored = RunState.model_validate_json(wire)
    assert restored == paused.state
    assert isinstance(restored.turn.pending[1], PreparedCommand)

    restored.turn.decide("r1-edit-1", Approve())
    restored.turn.decide("r1-edit-2", Reject(reason="not now"))
    fresh_executor = FakeExecutor()
    fresh_model = ScriptedModel.of(answer("Edited a.py."))
    outcome = await AgentLoop(fresh_model, fresh_executor, LoopConfig()).resume(restored)

    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "completed"
    assert outcome.result.answer == "Edited a.py."
    assert [c.edit_id for c in fresh_executor.applied] == ["r1-edit-1"]
    assert_paired(outcome.state.messages)
    results = results_of(outcome.state.messages)
    assert results[1].content == "Applied to /ws/a.py."
    assert results[2].content == "The user rejected this change: not now"
    assert [(e.path, e.status) for e in outcome.result.edits] == [
        ("/ws/a.py", "applied"),
        ("pytest -q", "rejected"),
    ]
    assert [t.status for t in outcome.result.tool_calls] == ["ok", "ok", "denied"]
    assert outcome.state.turn.pending == [] and outcome.state.turn.calls == []
    # The model's next turn saw every result.
    assert [m.role for m in fresh_model.calls[0].messages[-3:]] == ["tool", "tool", "tool"]


async def test_reject_all_tells_the_model_and_applies_nothing(executor: FakeExecutor) -> None:
    loop, paused = await pause_on(executor, edit("a.py"), edit("b.py"))
    reject_all(paused.state, "too broad")
    outcome = await loop.resume(paused.state)
    assert isinstance(outcome, Finished)
    assert executor.applied == []
    for result in results_of(outcome.state.messages):
        assert result.content == "The user rejected this change: too broad"
    assert {e.status for e in outcome.result.edits} == {"rejected"}


async def test_a_rejection_without_reason_still_reads_well(executor: FakeExecutor) -> None:
    loop, paused = await pause_on(executor, edit("a.py"))
    paused.state.turn.decide("r1-edit-1", Reject())
    outcome = await loop.resume(paused.state)
    assert isinstance(outcome, Finished)
    result = results_of(outcome.state.messages)[0].content
    assert result == "The user rejected this change: no reason given"


@pytest.mark.parametrize(
    ("landed", "status", "expected"),
    [
        (Landed(status="applied"), "applied", "it was applied"),
        (
            Landed(status="partial", detail="Kept hunks 1 and 3 of 3."),
            "partial",
            "Kept hunks 1 and 3 of 3.",
        ),
        (
            Landed(status="rejected", detail="wrong file"),
            "rejected",
            "rejected this change: wrong file",
        ),
        (Landed(status="stale"), "stale", "propose the change on the new text"),
        (Landed(status="denied", detail="outside /ws"), "rejected", "outside /ws"),
    ],
)
async def test_landed_decisions_become_the_calls_result(
    executor: FakeExecutor, landed: Landed, status: str, expected: str
) -> None:
    loop, paused = await pause_on(executor, edit("a.py"))
    paused.state.turn.decide("r1-edit-1", landed)
    outcome = await loop.resume(paused.state)
    assert isinstance(outcome, Finished)
    assert executor.applied == []  # the editor applied it; the runtime does not write again
    assert expected in results_of(outcome.state.messages)[0].content
    assert outcome.result.edits[0].status == status


async def test_a_rebased_change_that_landed_is_recorded_under_its_edit_id(
    executor: FakeExecutor,
) -> None:
    loop, paused = await pause_on(executor, edit("a.py"), edit("b.py"))
    second = paused.state.turn.pending[1]
    assert isinstance(second, PreparedEdit)
    executor.rebased[second.edit_id] = second.model_copy(update={"old_text": "other"})
    sent = await executor.recheck(second)  # what the front end sent instead
    assert not isinstance(sent, ToolOutcome)
    paused.state.turn.decide(paused.state.turn.pending[0].edit_id, Landed(status="applied"))
    paused.state.turn.decide(sent.edit_id, Landed(status="applied"))
    outcome = await loop.resume(paused.state)
    assert isinstance(outcome, Finished)
    assert [(e.edit_id, e.status) for e in outcome.result.edits] == [
        ("r1-edit-1", "applied"),
        ("r1-edit-2", "applied"),
    ]


async def test_an_approved_change_is_rechecked_before_it_is_applied(
    executor: FakeExecutor,
) -> None:
    _, paused = await pause_on(executor, edit("a.py"))
    change = paused.state.turn.pending[0]
    assert await executor.recheck(change) == change
    approve_all(paused.state)
    executor.forbidden.add("/ws/a.py")  # the rules changed after the proposal
    refusal = await executor.recheck(change)
    assert isinstance(refusal, ToolOutcome) and refusal.status == "denied"

    outcome = await AgentLoop(ScriptedModel.of(answer()), executor, LoopConfig()).resume(
        paused.state
    )
    assert isinstance(outcome, Finished)
    assert executor.applied == []
    assert results_of(outcome.state.messages)[0].content.startswith("Access denied")
    assert outcome.result.tool_calls[0].status == "denied"
    assert outcome.result.edits[0].status == "rejected"


async def test_a_stale_target_is_reported_as_stale(executor: FakeExecutor) -> None:
    loop, paused = await pause_on(executor, edit("a.py"))
    approve_all(paused.state)
    executor.stale.add("/ws/a.py")
    outcome = await loop.resume(paused.state)
    assert isinstance(outcome, Finished)
    assert outcome.result.edits[0].status == "stale"


async def test_resume_refuses_undecided_changes(executor: FakeExecutor) -> None:
    loop, paused = await pause_on(executor, edit("a.py"), edit("b.py"))
    paused.state.turn.decide("r1-edit-2", Approve())
    with pytest.raises(ResumeError, match="without a decision: r1-edit-1"):
        await loop.resume(paused.state)
    with pytest.raises(KeyError, match="no pending edit"):
        paused.state.turn.decide("nope", Approve())


async def test_resume_refuses_a_state_with_nothing_pending(executor: FakeExecutor) -> None:
    loop = AgentLoop(ScriptedModel(), executor, LoopConfig())
    with pytest.raises(ResumeError, match="no pending changes"):
        await loop.resume(RunState(run_id="r9", iteration_budget=8))


async def test_a_change_refused_at_prepare_is_the_result_without_a_pause(
    executor: FakeExecutor,
) -> None:
    executor.refuse_at_prepare["/ws/../etc/x"] = ToolOutcome(
        status="denied", content="Access denied: /etc/x is outside allowed write directories."
    )
    model = ScriptedModel.of(turn(edit("../etc/x")), answer("Could not."))
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "completed"
    assert outcome.result.edits == ()
    assert outcome.result.tool_calls[0].status == "denied"


async def test_an_exception_while_applying_is_a_failed_result(executor: FakeExecutor) -> None:
    loop, paused = await pause_on(executor, edit("a.py"))
    approve_all(paused.state)
    executor.raise_on_apply = True
    outcome = await loop.resume(paused.state)
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "completed"
    assert "OSError: disk on fire" in results_of(outcome.state.messages)[0].content
    assert outcome.result.edits[0].status == "rejected"


async def test_a_command_is_recorded_by_its_command_string(executor: FakeExecutor) -> None:
    _, paused = await pause_on(executor, call("run_command", {"command": "make test"}))
    assert [(e.tool, e.path) for e in paused.state.edits] == [("run_command", "make test")]
