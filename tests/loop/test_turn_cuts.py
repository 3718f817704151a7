"""Issue 14.3 / 16: an answer that was cut is never a clean final answer; the model is told."""

from __future__ import annotations

from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.messages import ModelTurn, TurnCut
from rune_lsp.loop.state import Finished, Paused
from rune_lsp.loop.turn_cuts import KEPT_CUT_TEXT, cut_notice

from .fakes import FakeExecutor, ScriptedModel, answer, approve_all, assert_paired, edit, read

LOOPING = "I will fix the bug now. " * 5_000


def _cut(reason: str, text: str, *calls: object) -> ModelTurn:
    return ModelTurn(
        text=text,
        tool_calls=tuple(calls),  # type: ignore[arg-type]
        cut=TurnCut(reason=reason, chars=len(text)),  # type: ignore[arg-type]
    )


async def test_a_cut_answer_is_followed_by_a_turn_that_hears_why(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(_cut("repetition", LOOPING), answer("Fixed in one line."))
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")

    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "completed"
    assert outcome.result.answer == "Fixed in one line."
    second = model.calls[1].messages
    assert second[-1].role == "user"
    assert second[-1].content == cut_notice(TurnCut(reason="repetition", chars=len(LOOPING)))
    assert "kept repeating" in second[-1].content
    # The history keeps a bounded head of the cut answer, not all of it.
    cut_answer = second[-2]
    assert cut_answer.role == "assistant"
    assert len(cut_answer.content) < KEPT_CUT_TEXT + 100 < len(LOOPING)
    assert model.calls[1].messages[: len(model.calls[0].messages)] == model.calls[0].messages


async def test_the_output_limit_on_the_last_turn_ends_incomplete(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(_cut("length", "The bug is in add: it"))
    outcome = await AgentLoop(model, executor, LoopConfig(max_iterations=1)).run("task")

    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "incomplete"
    assert outcome.result.error == (
        "the model's answer was cut at the output limit (after 21 characters)"
    )
    assert outcome.result.answer == "The bug is in add: it"


async def test_calls_of_a_cut_turn_run_and_the_notice_follows_their_results(
    executor: FakeExecutor,
) -> None:
    model = ScriptedModel.of(
        _cut("size", "Reading.", read("a.py"), read("b.py", id="x")),
        answer(),
    )
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")

    assert isinstance(outcome, Finished) and outcome.result.outcome == "completed"
    assert [name for name, _ in executor.executed] == ["read_file", "read_file"]
    second = model.calls[1].messages
    assert [m.role for m in second[-4:]] == ["assistant", "tool", "tool", "user"]
    assert "the most one answer may stream" in second[-1].content
    assert_paired(outcome.state.messages)


async def test_the_notice_survives_a_pause_for_review(executor: FakeExecutor) -> None:
    loop = AgentLoop(
        ScriptedModel.of(_cut("length", "Editing.", edit("a.py")), answer()),
        executor,
        LoopConfig(),
    )
    paused = await loop.run("task")
    assert isinstance(paused, Paused)
    restored = type(paused.state).model_validate_json(paused.state.model_dump_json())
    assert restored.notices and "output limit" in restored.notices[0]

    approve_all(restored)
    outcome = await loop.resume(restored)

    assert isinstance(outcome, Finished) and outcome.result.outcome == "completed"
    model = loop.model
    assert isinstance(model, ScriptedModel)
    last = model.calls[-1].messages
    assert [m.role for m in last[-3:]] == ["assistant", "tool", "user"]
    assert "output limit" in last[-1].content
    assert outcome.state.notices == []
