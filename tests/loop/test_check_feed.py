"""The check drives the loop: its verdict joins the task, follows every landed edit, ends a fix."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.candidates import retry_temperature
from rune_lsp.loop.events import CheckStarted, RunEvent
from rune_lsp.loop.records import EditRecord
from rune_lsp.loop.state import CheckReport, Finished, Paused

from .fakes import (
    FakeExecutor,
    ScriptedModel,
    answer,
    approve_all,
    assert_paired,
    edit,
    read,
    reject_all,
    turn,
)

FAILING = CheckReport(command="pytest -q", exit_code=1, output="E   assert -1 == 5\n1 failed")
PASSING = CheckReport(command="pytest -q", exit_code=0, output="1 passed")


@dataclass
class ScriptedChecker:
    """Answers each check with the next report; records what the loop knew when it asked."""

    reports: list[CheckReport]
    command: str = "pytest -q"
    asked_with: list[tuple[str, ...]] = field(default_factory=list)

    async def check(self, edits: Sequence[EditRecord]) -> CheckReport:
        self.asked_with.append(tuple(f"{e.edit_id}:{e.status}" for e in edits))
        return self.reports.pop(0)


async def paused_then_approved(
    loop: AgentLoop, checker: ScriptedChecker, outcome: Paused | Finished
) -> Finished:
    while isinstance(outcome, Paused):
        approve_all(outcome.state)
        outcome = await loop.resume(outcome.state, checker=checker)
    return outcome


async def test_a_failing_check_before_the_first_turn_joins_the_task() -> None:
    checker = ScriptedChecker([FAILING])
    model = ScriptedModel.of(answer("I cannot tell."))
    await AgentLoop(model, FakeExecutor(), LoopConfig()).run("Fix add.", checker=checker)

    task = model.calls[0].messages[1]
    assert task.role == "user" and task.content.startswith("Fix add.")
    assert "The check `pytest -q` failed (exit 1) on the current code." in task.content
    assert "E   assert -1 == 5" in task.content
    assert checker.asked_with == [()]


async def test_a_check_the_front_end_just_ran_is_taken_not_run_or_announced_again() -> None:
    checker = ScriptedChecker([])
    events: list[RunEvent] = []
    model = ScriptedModel.of(answer("I cannot tell."))
    loop = AgentLoop(model, FakeExecutor(), LoopConfig(), on_event=events.append)

    await loop.run("Fix add.", checker=checker, first_check=FAILING)

    assert "E   assert -1 == 5" in model.calls[0].messages[1].content
    assert checker.asked_with == []
    assert not any(isinstance(event, CheckStarted) for event in events)


async def test_a_check_that_passes_before_the_first_turn_tells_the_model_so() -> None:
    checker = ScriptedChecker([PASSING])
    model = ScriptedModel.of(answer("Nothing to fix."))
    outcome = await AgentLoop(model, FakeExecutor(), LoopConfig()).run("Fix add.", checker=checker)

    assert "passes already (exit 0)" in model.calls[0].messages[1].content
    assert isinstance(outcome, Finished) and outcome.state.check_failing is False


async def test_a_still_failing_check_after_an_accepted_edit_is_the_next_turns_input() -> None:
    still = CheckReport(command="pytest -q", exit_code=1, output="E   assert 6 == 5")
    checker = ScriptedChecker([FAILING, still, PASSING])
    model = ScriptedModel.of(
        turn(edit("app.py", "a - b", "a + b + 1"), text="Changing the sign."),
        turn(edit("app.py", "a + b + 1", "a + b")),
        answer("unused: the passing check ends the run"),
    )
    loop = AgentLoop(model, FakeExecutor(), LoopConfig())
    first = await loop.run("Fix add.", run_id="r", checker=checker)
    assert isinstance(first, Paused) and len(checker.asked_with) == 1  # not while pending

    finished = await paused_then_approved(loop, checker, first)

    second_turn = model.calls[1].messages
    assert second_turn[-2].role == "tool"  # the results first, then the check's verdict
    assert second_turn[-1].role == "user"
    assert "After your change the check `pytest -q` failed (exit 1)" in second_turn[-1].content
    assert "E   assert 6 == 5" in second_turn[-1].content
    assert checker.asked_with == [
        (),
        ("r-edit-1:applied",),
        ("r-edit-1:applied", "r-edit-2:applied"),
    ]
    # Passing after failing ends the run at once: no model turn after the fix.
    assert len(model.calls) == 2
    assert finished.result.outcome == "completed"
    assert "passes (exit 0)" in finished.state.messages[-1].content
    assert_paired(finished.state.messages)


async def test_the_answer_of_a_run_ended_by_its_check_is_the_models_own_words() -> None:
    checker = ScriptedChecker([FAILING, PASSING])
    model = ScriptedModel.of(turn(edit("app.py", "a - b", "a + b"), text="add subtracted."))
    loop = AgentLoop(model, FakeExecutor(), LoopConfig())
    finished = await paused_then_approved(loop, checker, await loop.run("Fix.", checker=checker))
    assert finished.result.answer == "add subtracted."


async def test_after_a_passing_start_a_passing_check_does_not_end_the_run() -> None:
    checker = ScriptedChecker([PASSING, PASSING])
    model = ScriptedModel.of(turn(edit("app.py", "x", "y")), answer("Renamed x."))
    loop = AgentLoop(model, FakeExecutor(), LoopConfig())
    finished = await paused_then_approved(loop, checker, await loop.run("Rename.", checker=checker))

    assert len(model.calls) == 2  # the model still had its say
    assert finished.result.answer == "Renamed x."
    assert "passes (exit 0)" in model.calls[1].messages[-1].content


async def test_no_check_after_a_turn_whose_edits_did_not_land() -> None:
    checker = ScriptedChecker([FAILING])
    model = ScriptedModel.of(turn(edit("app.py")), answer("Left it."))
    loop = AgentLoop(model, FakeExecutor(), LoopConfig())
    paused = await loop.run("Fix.", checker=checker)
    assert isinstance(paused, Paused)
    reject_all(paused.state)
    await loop.resume(paused.state, checker=checker)
    assert checker.asked_with == [()]


async def test_no_check_after_a_turn_of_reads_only() -> None:
    checker = ScriptedChecker([FAILING])
    model = ScriptedModel.of(turn(read("app.py")), answer("Read it."))
    await AgentLoop(model, FakeExecutor(), LoopConfig()).run("Look.", checker=checker)
    assert checker.asked_with == [()]


async def test_checks_are_reported_as_progress_events() -> None:
    events: list[RunEvent] = []
    loop = AgentLoop(ScriptedModel.of(answer("ok")), FakeExecutor(), LoopConfig(), events.append)
    await loop.run("Fix.", checker=ScriptedChecker([FAILING]))
    started = [e for e in events if isinstance(e, CheckStarted)]
    assert [(e.command, e.iterations_used) for e in started] == [("pytest -q", 0)]


async def test_a_checker_that_raises_is_a_failed_check_not_a_failed_run() -> None:
    class Broken(ScriptedChecker):
        async def check(self, edits: Sequence[EditRecord]) -> CheckReport:
            raise OSError("no shell")

    model = ScriptedModel.of(answer("ok"))
    outcome = await AgentLoop(model, FakeExecutor(), LoopConfig()).run("Fix.", checker=Broken([]))
    assert isinstance(outcome, Finished) and outcome.result.outcome == "completed"
    task = model.calls[0].messages[1].content
    assert "The check `pytest -q` could not run on the current code." in task
    assert "OSError: no shell" in task


async def test_a_fix_whose_check_still_fails_shows_the_file_as_it_reads_now() -> None:
    # Qwen2.5-Coder 1.5B, told only that the check still fails, repeated its previous answer
    # word for word (bench/effect, task 01): it never saw what its change made of the file.
    executor = FakeExecutor()
    executor.files["app.py"] = "def add(a, b):\n    return a + b + 1\n"
    checker = ScriptedChecker([FAILING, FAILING])
    model = ScriptedModel.of(turn(edit("app.py", "a - b", "a + b + 1")), answer("I cannot."))
    loop = AgentLoop(model, executor, LoopConfig(first_turn="tools"))  # a call on turn 1
    first = await loop.run("Fix add.", run_id="r", checker=checker, target="app.py")
    await paused_then_approved(loop, checker, first)

    verdict = model.calls[1].messages[-1].content
    assert "After your change the check `pytest -q` failed (exit 1)" in verdict
    assert "app.py now reads:\n```\ndef add(a, b):\n    return a + b + 1\n```" in verdict
    assert verdict.endswith(
        "Fix what still fails: answer with the corrected code in one fenced code block holding "
        "the whole function you change. If you cannot, say why without code."
    )


async def test_without_a_target_the_still_failing_verdict_shows_no_file() -> None:
    checker = ScriptedChecker([FAILING, FAILING])
    model = ScriptedModel.of(turn(edit("app.py", "a - b", "a + b + 1")), answer("I cannot."))
    loop = AgentLoop(model, FakeExecutor(), LoopConfig())
    await paused_then_approved(loop, checker, await loop.run("Fix add.", checker=checker))

    verdict = model.calls[1].messages[-1].content
    assert "now reads" not in verdict
    assert verdict.endswith("Fix what still fails, or answer without tools if you cannot.")


async def test_a_block_that_changes_nothing_while_the_check_fails_is_told_so() -> None:
    app = "def add(a, b):\n    return a - b\n"
    executor = FakeExecutor()
    executor.files["app.py"] = app
    checker = ScriptedChecker([FAILING])
    same = f"```python\n{app}```\nI fixed the sign."
    fixed = "```python\ndef add(a, b):\n    return a + b\n```"
    model = ScriptedModel.of(answer(same), answer(fixed))
    outcome = await AgentLoop(model, executor, LoopConfig()).run(
        "Fix add.", run_id="r", target="app.py", checker=checker
    )

    note = model.calls[1].messages[-1]
    assert note.role == "user"
    assert note.content.startswith("Your code block is the same as the current code of app.py")
    assert "the check still fails" in note.content
    assert isinstance(outcome, Paused)  # the second block is proposed for review
    [change] = outcome.state.turn.pending
    assert (change.old_text, change.new_text) == ("    return a - b", "    return a + b")


async def test_the_current_code_quoted_without_a_failing_check_is_an_answer() -> None:
    app = "def add(a, b):\n    return a + b\n"
    executor = FakeExecutor()
    executor.files["app.py"] = app
    model = ScriptedModel.of(answer(f"The code is right:\n```python\n{app}```"))
    outcome = await AgentLoop(model, executor, LoopConfig()).run(
        "Fix add.", run_id="r", target="app.py", checker=ScriptedChecker([PASSING])
    )
    assert isinstance(outcome, Finished) and len(model.calls) == 1


async def test_the_same_unchanged_block_after_the_note_ends_the_notes() -> None:
    app = "def add(a, b):\n    return a - b\n"
    executor = FakeExecutor()
    executor.files["app.py"] = app
    same = f"```python\n{app}```"
    model = ScriptedModel.of(answer(same), answer(same), answer("unused"))
    outcome = await AgentLoop(model, executor, LoopConfig()).run(
        "Fix add.", run_id="r", target="app.py", checker=ScriptedChecker([FAILING])
    )
    # Told once; the word-for-word repeat is the run's answer, not a third turn.
    assert isinstance(outcome, Finished) and len(model.calls) == 2
    assert outcome.result.edits == ()


async def test_only_the_turn_right_after_a_block_note_samples_wider() -> None:
    app = "def add(a, b):\n    return a - b\n"
    executor = FakeExecutor()
    executor.files["app.py"] = app
    same = f"```python\n{app}```"
    fixed = "```python\ndef add(a, b):\n    return a + b\n```"
    model = ScriptedModel.of(answer(same), answer(fixed), answer("I cannot."))
    loop = AgentLoop(model, executor, LoopConfig(temperature=0.2))
    checker = ScriptedChecker([FAILING, FAILING])
    await paused_then_approved(
        loop, checker, await loop.run("Fix add.", run_id="r", target="app.py", checker=checker)
    )

    assert model.calls[0].temperature is None  # the provider's own
    # Told its block changed nothing: the retry is sampled as wide as a second candidate.
    assert model.calls[1].temperature == retry_temperature(0.2, 1) == 0.5
    # Its fix landed and still fails: that turn hears the verdict at the provider's own again.
    assert len(model.calls) == 3 and model.calls[2].temperature is None


async def test_a_comment_only_block_while_the_check_fails_is_told_it_changes_nothing() -> None:
    app = "def add(a, b):\n    return a - b\n"
    executor = FakeExecutor()
    executor.files["app.py"] = app
    commented = "```python\ndef add(a, b):\n    # add the two\n    return a - b\n```"
    fixed = "```python\ndef add(a, b):\n    return a + b\n```"
    model = ScriptedModel.of(answer(commented), answer(fixed))
    tests_fail = FAILING.model_copy(update={"failures": 1})
    outcome = await AgentLoop(model, executor, LoopConfig()).run(
        "Fix add.", run_id="r", target="app.py", checker=ScriptedChecker([tests_fail])
    )

    note = model.calls[1].messages[-1].content
    assert note.startswith("Your code block runs the same as the current code of app.py")
    assert "the check still fails" in note
    assert isinstance(outcome, Paused)
    [change] = outcome.state.turn.pending
    assert (change.old_text, change.new_text) == ("    return a - b", "    return a + b")


async def test_a_comment_only_block_is_an_edit_unless_tests_fail() -> None:
    # "Add a comment" is a task of its own; and a check whose output counts no failing test
    # may be a linter, which a comment (`# noqa`) or a wrapped line does change.
    lint = CheckReport(command="ruff check", exit_code=1, output="E501 Line too long")
    for report in (PASSING, lint):
        executor = FakeExecutor()
        executor.files["app.py"] = "def add(a, b):\n    return a + b\n"
        commented = "```python\ndef add(a, b):\n    return a + b  # noqa: E501\n```"
        model = ScriptedModel.of(answer(commented))
        outcome = await AgentLoop(model, executor, LoopConfig()).run(
            "Fix add.", run_id="r", target="app.py", checker=ScriptedChecker([report])
        )

        assert isinstance(outcome, Paused), report
        [change] = outcome.state.turn.pending
        assert "# noqa: E501" in change.new_text
