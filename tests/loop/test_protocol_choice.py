"""Issue 16: the protocol follows what the model does. A model that answers a fix in prose
gets one turn showing how to call edit_file, then the text protocol; a working switch is
reported to the provider, which remembers it per model."""

from __future__ import annotations

from pathlib import Path

from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.messages import ModelTurn
from rune_lsp.loop.state import Finished, Paused
from rune_lsp.loop.task import FixTask

from .fakes import FakeExecutor, ScriptedModel, answer, edit, read, turn

TASK = FixTask(
    path="src/app.py",
    text="def add(a, b):\n    return a - b\n",
    instruction="add(2, 3) returns -1 instead of 5. Fix the bug.",
).prompt()
# Recorded: Qwen2.5-Coder-1.5B-Instruct on llama-server --jinja, offered native tools, answering
# `rune-lsp fix app.py -m "There is a bug in this program. Fix it."` (temperature 0.2): prose
# and a code block, no call. Coached with the wording the loop now uses, it answered with
# COACHED (a fenced call whose docstring quotes it forgot to escape).
PROSE = ModelTurn(
    text=(Path(__file__).parent / "fixtures" / "qwen2.5-coder-1.5b_prose_fix.txt").read_text()
)
COACHED = ModelTurn(
    text=(Path(__file__).parent / "fixtures" / "qwen2.5-coder-1.5b_coached_call.txt").read_text()
)
TEXT_EDIT = ModelTurn(
    text='<tool_call>{"name": "edit_file", "arguments": {"path": "src/app.py", '
    '"old_text": "    return a - b\\n", "new_text": "    return a + b\\n"}}</tool_call>'
)


def _adaptive(*steps: ModelTurn) -> ScriptedModel:
    return ScriptedModel.of(*steps, adaptive_protocol=True)


async def test_prose_twice_moves_the_run_to_the_text_protocol(executor: FakeExecutor) -> None:
    model = _adaptive(PROSE, PROSE, TEXT_EDIT)
    loop = AgentLoop(model, executor, LoopConfig(first_turn="tools"))
    outcome = await loop.run(TASK, target="src/app.py")  # unreadable: its block proposes nothing

    assert isinstance(outcome, Paused)
    assert [p.tool for p in outcome.state.turn.pending] == ["edit_file"]
    _, coached, switched = model.calls
    # Turn 2: still native, told exactly how to call edit_file on the task's own file.
    assert coached.tools and coached.messages[-1].role == "user"
    coaching = coached.messages[-1].content
    assert "Reply with only one call of the edit_file tool" in coaching
    assert '"path": "src/app.py"' in coaching and "without line numbers" in coaching
    # Turn 3: the text protocol, its format shown with the real path.
    assert switched.tools == []
    assert "<tool_call>" in switched.messages[0].content
    assert '"path": "src/app.py"' in switched.messages[-1].content
    assert outcome.state.native_tools is False
    assert outcome.state.protocol_step == "remembered"
    assert model.prefers_text  # the provider hears that the text protocol worked


async def test_a_model_that_calls_once_coached_stays_native(executor: FakeExecutor) -> None:
    model = _adaptive(PROSE, turn(edit("src/app.py")))
    outcome = await AgentLoop(model, executor, LoopConfig()).run(TASK)

    assert isinstance(outcome, Paused)
    assert outcome.state.native_tools is True
    assert outcome.state.protocol_step == "coached"
    assert not model.prefers_text


async def test_prose_after_the_switch_is_the_final_answer(executor: FakeExecutor) -> None:
    model = _adaptive(PROSE, PROSE, answer("No change is needed."))
    outcome = await AgentLoop(model, executor, LoopConfig()).run(TASK)

    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "completed"
    assert outcome.result.answer == "No change is needed."
    assert len(model.calls) == 3
    assert not model.prefers_text  # nothing showed the text protocol working


async def test_a_forced_or_settled_protocol_is_left_alone(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(PROSE)  # adaptive_protocol False: a setting chose, or a memory
    outcome = await AgentLoop(model, executor, LoopConfig()).run(TASK)

    assert isinstance(outcome, Finished) and outcome.result.outcome == "completed"
    assert len(model.calls) == 1


async def test_a_model_that_already_used_tools_is_not_coached(executor: FakeExecutor) -> None:
    model = _adaptive(turn(read("src/app.py")), answer("It is correct as it is."))
    outcome = await AgentLoop(model, executor, LoopConfig()).run(TASK)

    assert isinstance(outcome, Finished) and outcome.result.outcome == "completed"
    assert len(model.calls) == 2


async def test_a_call_written_as_text_needs_no_coaching(executor: FakeExecutor) -> None:
    model = _adaptive(TEXT_EDIT)
    outcome = await AgentLoop(model, executor, LoopConfig()).run(TASK)

    assert isinstance(outcome, Paused)
    assert outcome.state.protocol_step == "none" and outcome.state.native_tools is True


async def test_the_steps_fit_the_budget(executor: FakeExecutor) -> None:
    one = _adaptive(PROSE)
    outcome = await AgentLoop(one, executor, LoopConfig(max_iterations=1)).run(TASK)
    assert isinstance(outcome, Finished) and outcome.result.outcome == "completed"
    assert len(one.calls) == 1

    two = _adaptive(PROSE, PROSE)
    outcome = await AgentLoop(two, executor, LoopConfig(max_iterations=2)).run(TASK)
    assert isinstance(outcome, Finished) and outcome.result.outcome == "completed"
    assert len(two.calls) == 2 and outcome.state.native_tools is True


async def test_an_empty_first_answer_is_not_coached(executor: FakeExecutor) -> None:
    model = _adaptive(answer(""))
    outcome = await AgentLoop(model, executor, LoopConfig()).run(TASK)
    assert isinstance(outcome, Finished) and outcome.result.outcome == "incomplete"
    assert len(model.calls) == 1


async def test_the_recorded_coached_answer_is_refused_and_told_why(executor: FakeExecutor) -> None:
    # Its docstring quotes are unescaped: the JSON is broken, and no quote is guessed back
    # into place (tests/providers/test_recorded_coder.py, MALFORMED). The call's result says
    # why; the model writes it again.
    model = _adaptive(PROSE, COACHED, TEXT_EDIT)
    outcome = await AgentLoop(model, executor, LoopConfig()).run(TASK)

    assert isinstance(outcome, Paused)
    [failed] = [r for r in outcome.state.call_log if r.status == "failed"]
    assert failed.name == "edit_file" and "not valid JSON" in failed.digest
    result = next(m for m in outcome.state.messages if m.tool_call_id == failed.call_id)
    assert 'a quote inside a string is written \\"' in result.content
    [change] = outcome.state.turn.pending
    assert change.tool == "edit_file" and change.path.endswith("app.py")
