"""A prose answer with a code block, in a run asked to change a file, is a reviewed edit."""

from __future__ import annotations

import pytest

from rune_lsp.answers.code_prompts import BLOCK_ASK, CODE_CUT_ADVICE
from rune_lsp.loop import AgentLoop, LoopConfig, LoopConfigError
from rune_lsp.loop.messages import ModelTurn, TurnCut
from rune_lsp.loop.proposals import MAX_BLOCK_NOTES
from rune_lsp.loop.state import Finished, Landed, Paused, PreparedEdit, RunOutcome, RunState

from .fakes import (
    FakeExecutor,
    ScriptedModel,
    answer,
    approve_all,
    assert_paired,
    reject_all,
)

APP = 'def add(a, b):\n    """Return the sum of a and b."""\n    return a - b\n'
#: The shape of what Qwen2.5-Coder 0.5B/1.5B answered in the issue's runs: prose, the corrected
#: function in a fenced block, more prose, and no tool call.
PROSE_FIX = (
    "The bug is in the `add` function: it subtracts `b` from `a` instead of adding them.\n\n"
    "Here is the corrected code:\n\n"
    "```python\n"
    "def add(a, b):\n"
    '    """Return the sum of a and b."""\n'
    "    return a + b\n"
    "```\n\n"
    "This change makes `add(2, 3)` return `5`."
)
AMBIGUOUS = "Change it like this:\n\n```python\ndef run(self):\n    return 3\n```"
TWO_RUNS = (
    "class A:\n    def run(self):\n        return 1\n\n\n"
    "class B:\n    def run(self):\n        return 2\n"
)


def executor_with(files: dict[str, str]) -> FakeExecutor:
    executor = FakeExecutor()
    executor.files.update(files)
    return executor


async def start(
    model: ScriptedModel, executor: FakeExecutor, target: str | None = "app.py"
) -> RunOutcome:
    return await AgentLoop(model, executor, LoopConfig()).run(
        "Fix add.", run_id="r1", target=target
    )


async def paused_on_the_fix(then: str) -> tuple[AgentLoop, ScriptedModel, Paused]:
    """A run paused on PROSE_FIX's proposal; `then` is the model's next answer, if asked."""
    model = ScriptedModel.of(answer(PROSE_FIX), answer(then))
    loop = AgentLoop(model, executor_with({"app.py": APP}), LoopConfig())
    paused = await loop.run("Fix add.", run_id="r1", target="app.py")
    assert isinstance(paused, Paused)
    return loop, model, paused


async def test_a_block_becomes_an_edit_file_proposal_that_waits_for_review() -> None:
    executor = executor_with({"app.py": APP})
    model = ScriptedModel.of(answer(PROSE_FIX), answer("Done."))
    outcome = await start(model, executor)

    assert isinstance(outcome, Paused)  # never applied unreviewed
    assert executor.applied == []
    [change] = outcome.state.turn.pending
    assert isinstance(change, PreparedEdit) and change.tool == "edit_file"
    assert (change.old_text, change.new_text) == ("    return a - b", "    return a + b")
    assert change.reason.startswith("The bug is in the `add` function")  # shown to the reviewer
    proposal = outcome.state.messages[-1]
    assert proposal.role == "assistant" and proposal.content == PROSE_FIX
    [proposed] = proposal.tool_calls
    assert proposed.name == "edit_file" and proposed.arguments["path"] == "app.py"
    assert [e.status for e in outcome.state.edits] == ["pending"]


async def test_an_applied_block_without_a_check_is_the_runs_answer() -> None:
    loop, model, paused = await paused_on_the_fix("unused: the answer stands")
    approve_all(paused.state)
    finished = await loop.resume(paused.state)

    assert isinstance(finished, Finished)
    assert (finished.result.outcome, finished.result.answer) == ("completed", PROSE_FIX.strip())
    assert [e.status for e in finished.result.edits] == ["applied"]
    assert [t.name for t in finished.result.tool_calls] == ["edit_file"]
    assert len(model.calls) == 1  # nothing new to tell the model but "applied"
    told = finished.state.messages[-1]
    assert told.role == "tool" and "Applied to /ws/app.py" in told.content
    assert_paired(finished.state.messages)


async def test_a_block_applied_in_part_goes_back_to_the_model() -> None:
    loop, model, paused = await paused_on_the_fix("Kept what you took.")
    [change] = paused.state.turn.pending
    paused.state.turn.decide(change.edit_id, Landed(status="partial", detail="kept line 3"))
    finished = await loop.resume(paused.state)

    assert isinstance(finished, Finished) and len(model.calls) == 2
    assert finished.result.answer == "Kept what you took."


async def test_a_rejected_block_is_told_as_rejected() -> None:
    loop, model, paused = await paused_on_the_fix("Left it.")
    reject_all(paused.state, "not like that")
    finished = await loop.resume(paused.state)

    assert isinstance(finished, Finished)
    assert [e.status for e in finished.result.edits] == ["rejected"]
    assert "not like that" in model.calls[1].messages[-1].content


async def test_the_text_protocol_reads_blocks_too() -> None:
    executor = executor_with({"app.py": APP})
    outcome = await start(ScriptedModel.of(answer(PROSE_FIX), native_tools=False), executor)
    assert isinstance(outcome, Paused)
    assert [c.tool for c in outcome.state.turn.pending] == ["edit_file"]


async def test_without_a_target_a_block_is_just_an_answer() -> None:
    executor = executor_with({"app.py": APP})
    outcome = await start(ScriptedModel.of(answer(PROSE_FIX)), executor, target=None)
    assert isinstance(outcome, Finished)
    assert (outcome.result.outcome, outcome.result.edits) == ("completed", ())


async def test_a_block_equal_to_the_file_ends_the_run_as_an_answer() -> None:
    executor = executor_with({"app.py": APP})
    same = f"The code is right:\n```python\n{APP}```"
    # Asked again as it was (loop/resample.py), the same answer each time.
    model = ScriptedModel.of(answer(same), answer(same), answer(same), answer("unused"))
    outcome = await start(model, executor)
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "completed" and outcome.result.edits == ()
    assert outcome.result.answer == same.strip() and len(model.calls) == 3
    assert len(outcome.state.messages) == 3  # no note was sent: nothing was wrong


async def test_an_ambiguous_block_is_not_guessed_and_the_model_is_told_why() -> None:
    executor = executor_with({"app.py": TWO_RUNS})
    # Worded differently each time: a word-for-word repeat ends the notes at once.
    again = [AMBIGUOUS, f"Again:\n{AMBIGUOUS}", f"Once more:\n{AMBIGUOUS}"]
    model = ScriptedModel.of(*(answer(text) for text in again))
    outcome = await start(model, executor)

    assert isinstance(outcome, Finished)
    assert executor.prepared == []
    assert (outcome.result.outcome, outcome.result.edits) == ("completed", ())
    # Told twice at most, then the answer stands as the run's answer.
    assert len(model.calls) == MAX_BLOCK_NOTES + 1
    note = model.calls[1].messages[-1]
    assert note.role == "user"
    assert "`def run` occurs 2 times in app.py" in note.content
    assert "edit_file" in note.content
    assert model.calls[1].messages[-2].content == AMBIGUOUS


async def test_a_clearer_block_after_the_note_is_proposed() -> None:
    executor = executor_with({"app.py": TWO_RUNS})
    clear = "```python\nclass B:\n    def run(self):\n        return 3\n```"
    outcome = await start(ScriptedModel.of(answer(AMBIGUOUS), answer(clear)), executor)
    assert isinstance(outcome, Paused)
    [change] = outcome.state.turn.pending
    assert isinstance(change, PreparedEdit)
    assert (change.old_text, change.new_text) == ("        return 2", "        return 3")


async def test_no_note_when_the_budget_is_spent() -> None:
    executor = executor_with({"app.py": TWO_RUNS})
    model = ScriptedModel.of(answer(AMBIGUOUS))
    loop = AgentLoop(model, executor, LoopConfig(max_iterations=1))
    outcome = await loop.run("Fix it.", run_id="r1", target="app.py")
    assert isinstance(outcome, Finished) and outcome.result.outcome == "completed"


async def test_an_unreadable_target_falls_back_to_the_answer() -> None:
    outcome = await start(ScriptedModel.of(answer(PROSE_FIX)), executor_with({}))
    assert isinstance(outcome, Finished) and outcome.result.outcome == "completed"


async def test_the_target_survives_a_pause_as_json() -> None:
    executor = executor_with({"app.py": APP})
    paused = await start(ScriptedModel.of(answer(PROSE_FIX)), executor)
    assert isinstance(paused, Paused)
    again = RunState.model_validate_json(paused.state.model_dump_json())
    assert again.target == "app.py"


async def test_a_block_closed_before_an_answer_began_repeating_is_still_a_proposal() -> None:
    # Qwen2.5-Coder 1.5B (bench/effect, task 23): the corrected function, then the same
    # explanation over and over until the stream was cut for repetition.
    looping = PROSE_FIX + "\n\nThis ensures the sum is right." * 200
    cut = ModelTurn(text=looping, cut=TurnCut(reason="repetition", chars=len(looping)))
    executor = executor_with({"app.py": APP})
    model = ScriptedModel.of(cut, answer("Done."))
    outcome = await start(model, executor)

    assert isinstance(outcome, Paused)
    [change] = outcome.state.turn.pending
    assert isinstance(change, PreparedEdit)
    assert "a - b" in change.old_text and "return a + b" in change.new_text
    reject_all(outcome.state, "not yet")  # so that the model gets the next turn
    finished = await AgentLoop(model, executor, LoopConfig()).resume(outcome.state)
    notice = model.calls[1].messages[-1].content
    assert "kept repeating" in notice
    # The advice is the task's own ask, with no sentence after the block (issue 24).
    assert CODE_CUT_ADVICE in notice and BLOCK_ASK in notice
    assert "sentence" not in notice
    assert isinstance(finished, Finished)
    assert_paired(finished.state.messages)


async def test_a_block_of_an_answer_cut_at_the_output_limit_is_not_read() -> None:
    cut = ModelTurn(text=PROSE_FIX, cut=TurnCut(reason="length", chars=len(PROSE_FIX)))
    executor = executor_with({"app.py": APP})
    model = ScriptedModel.of(cut, answer("Stopping."))
    outcome = await start(model, executor)

    assert isinstance(outcome, Finished)
    assert executor.applied == [] and outcome.result.edits == ()


async def test_a_code_first_fix_offers_no_tools_on_its_first_turn_only() -> None:
    # LoopConfig(first_turn="code"), the product's default (settings `firstTurn`): offered
    # tools, Qwen2.5-Coder 1.5B "fixed" lines of pytest's report with edit_file calls.
    executor = executor_with({"app.py": APP})
    model = ScriptedModel.of(answer(PROSE_FIX), answer("Done."))
    loop = AgentLoop(model, executor, LoopConfig(first_turn="code"))
    outcome = await loop.run("Fix add.", run_id="r1", target="app.py")

    assert isinstance(outcome, Paused)  # the block is a proposal, reviewed like any call
    assert model.calls[0].tools == []
    reject_all(outcome.state, "try again")
    finished = await loop.resume(outcome.state)
    assert isinstance(finished, Finished)
    assert [t.name for t in model.calls[1].tools] == [d.spec.name for d in executor.definitions()]


async def test_code_first_needs_a_target_and_tools_first_offers_them_at_once() -> None:
    for config, target, offered in (
        (LoopConfig(first_turn="code"), None, True),
        (LoopConfig(first_turn="tools"), "app.py", True),
        (LoopConfig(first_turn="code"), "app.py", False),
    ):
        model = ScriptedModel.of(answer("Nothing to change."))
        await AgentLoop(model, executor_with({"app.py": APP}), config).run(
            "Fix add.", target=target
        )
        assert bool(model.calls[0].tools) is offered, (config.first_turn, target)


def test_an_unknown_first_turn_is_a_typed_config_error() -> None:
    expected = "first_turn must be one of code, tools, got 'blocks'"
    with pytest.raises(LoopConfigError, match=expected):
        LoopConfig(first_turn="blocks")  # type: ignore[arg-type]


async def test_a_block_for_another_file_is_an_edit_of_that_file() -> None:
    # Issue 24 item 7: a block labelled for utils.py is proposed for utils.py (its own sandbox
    # check and review), never written into the target.
    utils = "def double(x):\n    return x + x + x\n"
    executor = executor_with({"app.py": APP, "utils.py": utils})
    labelled = "```python title=utils.py\ndef double(x):\n    return x * 2\n```"
    outcome = await start(ScriptedModel.of(answer(labelled), answer("Done.")), executor)

    assert isinstance(outcome, Paused)
    [change] = outcome.state.turn.pending
    assert isinstance(change, PreparedEdit) and change.path.endswith("/utils.py")
    assert (change.old_text, change.new_text) == ("    return x + x + x", "    return x * 2")


async def test_a_block_for_a_file_that_cannot_be_read_is_refused_naming_it() -> None:
    executor = executor_with({"app.py": APP})
    labelled = "```python title=utils.py\ndef double(x):\n    return x * 2\n```"
    model = ScriptedModel.of(answer(labelled), answer("Done."))
    outcome = await start(model, executor)

    assert executor.prepared == []
    assert "utils.py, which could not be read" in model.calls[1].messages[-1].content
    assert isinstance(outcome, Finished)


#: Issue 27 point 6, replayed: a two-line fix, the user takes one line and rejects the other,
#: and the model's closing summary quotes its whole proposal again.
TWO_LINES = "def add(a, b):\n    x = a\n    y = b\n    return x - y\n"
TWO_LINE_FIX = (
    "Two problems:\n\n```python\ndef add(a, b):\n    x = int(a)\n    y = b\n    return x + y\n```\n"
)
SUMMARY_QUOTING_IT = (
    "I changed `add` to convert `a` and to add:\n\n```python\n"
    "def add(a, b):\n    x = int(a)\n    y = b\n    return x + y\n"
    "```\n\nThat is the whole fix."
)


async def after_a_partial_accept(then: str) -> tuple[ScriptedModel, RunOutcome]:
    """TWO_LINE_FIX proposed; the user took `x = int(a)` and rejected `return x + y` (the file
    holds what landed); `then` is the model's next answer."""
    executor = executor_with({"app.py": TWO_LINES})
    model = ScriptedModel.of(answer(TWO_LINE_FIX), answer(then))
    loop = AgentLoop(model, executor, LoopConfig())
    paused = await loop.run("Fix add.", run_id="r1", target="app.py")
    assert isinstance(paused, Paused)
    [change] = paused.state.turn.pending
    executor.files["app.py"] = TWO_LINES.replace("x = a", "x = int(a)")
    paused.state.turn.decide(change.edit_id, Landed(status="partial", detail="kept part"))
    return model, await loop.resume(paused.state)


async def test_a_summary_quoting_what_the_user_just_rejected_is_the_answer() -> None:
    model, finished = await after_a_partial_accept(SUMMARY_QUOTING_IT)

    assert isinstance(finished, Finished), "the quote became a new proposal"
    assert finished.result.outcome == "completed"
    assert finished.result.answer == SUMMARY_QUOTING_IT.strip()
    assert [e.status for e in finished.result.edits] == ["partial"]
    assert len(model.calls) == 2


async def test_a_new_block_after_a_partial_accept_is_still_a_proposal() -> None:
    _, again = await after_a_partial_accept(
        SUMMARY_QUOTING_IT.replace("return x + y", "return y + x")
    )

    assert isinstance(again, Paused)  # `return y + x` is new: reviewed like any edit
    [proposal] = again.state.turn.pending
    assert isinstance(proposal, PreparedEdit) and "return y + x" in proposal.new_text
