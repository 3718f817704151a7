"""The terminal reviewer: what it shows for each change and what each answer decides."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from rune_lsp.cli.review import QUIT, REJECTED, TerminalReviewer
from rune_lsp.loop.state import (
    Approve,
    PreparedCommand,
    PreparedEdit,
    Reject,
    RunState,
)

ROOT = Path("/ws")


class Reviewer(TerminalReviewer):
    @property
    def stopped(self) -> bool:
        """Whether the review ended early (q or end of input): later changes are not asked."""
        return self._stopped is not None


class Answers:
    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)
        self.asked = 0

    async def readline(self) -> str:
        self.asked += 1
        return self.lines.pop(0) if self.lines else ""


def _edit(number: int, *, reason: str = "") -> PreparedEdit:
    return PreparedEdit(
        edit_id=f"e{number}",
        call_id=f"c{number}",
        tool="edit_file",
        path=f"/ws/src/m{number}.py",
        old_text="x = 1\n",
        new_text="x = 2\n",
        reason=reason,
    )


def _state(*changes: PreparedEdit | PreparedCommand) -> RunState:
    return RunState(run_id="r", iteration_budget=8, pending=list(changes))


def _reviewer(
    answers: Answers | None, *, preset: bool | None = None, color: bool = False
) -> tuple[Reviewer, io.StringIO]:
    out = io.StringIO()
    reviewer = Reviewer(root=ROOT, out=out, answers=answers, preset=preset, color=color)
    return reviewer, out


async def test_shows_position_reason_and_a_plain_diff_then_asks() -> None:
    edit = _edit(1, reason="The constant is off by one.")
    reviewer, out = _reviewer(Answers("y\n"))
    assert await reviewer.decide(edit, _state(edit, _edit(2))) == Approve()
    shown = out.getvalue()
    assert "[1/2] edit_file src/m1.py\n" in shown
    assert "The constant is off by one.\n" in shown
    assert "--- a/src/m1.py\n+++ b/src/m1.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n" in shown
    assert shown.endswith("Apply this edit? [y/n/q] ")
    assert "\x1b[" not in shown


async def test_colour_when_asked_for() -> None:
    edit = _edit(1)
    reviewer, out = _reviewer(Answers("n\n"), color=True)
    await reviewer.decide(edit, _state(edit))
    assert "\x1b[31m-x = 1\x1b[0m" in out.getvalue()
    assert "\x1b[32m+x = 2\x1b[0m" in out.getvalue()


@pytest.mark.parametrize("reply", ["y\n", "Y\n", "yes\n", " y \n"])
async def test_yes_approves(reply: str) -> None:
    edit = _edit(1)
    reviewer, _ = _reviewer(Answers(reply))
    assert await reviewer.decide(edit, _state(edit)) == Approve()


@pytest.mark.parametrize("reply", ["n\n", "NO\n"])
async def test_no_rejects_and_keeps_asking_later(reply: str) -> None:
    first, second = _edit(1), _edit(2)
    reviewer, _ = _reviewer(Answers(reply, "y\n"))
    state = _state(first, second)
    assert await reviewer.decide(first, state) == Reject(reason=REJECTED)
    assert await reviewer.decide(second, state) == Approve()


async def test_unclear_answers_are_asked_again() -> None:
    edit = _edit(1)
    answers = Answers("\n", "sure\n", "y\n")
    reviewer, out = _reviewer(answers)
    assert await reviewer.decide(edit, _state(edit)) == Approve()
    assert answers.asked == 3
    assert out.getvalue().count("Please answer y (apply), n (reject) or q") == 2


async def test_q_rejects_this_and_every_later_change_without_asking() -> None:
    first, second = _edit(1), _edit(2)
    answers = Answers("q\n", "y\n")
    reviewer, out = _reviewer(answers)
    state = _state(first, second)
    assert await reviewer.decide(first, state) == Reject(reason=QUIT)
    assert await reviewer.decide(second, state) == Reject(reason=QUIT)
    assert answers.asked == 1
    assert reviewer.stopped
    assert "skipped edit_file src/m2.py: the review has ended" in out.getvalue()
    assert out.getvalue().count("Apply this edit?") == 1


async def test_end_of_input_rejects_and_stops_asking() -> None:
    first, second = _edit(1), _edit(2)
    answers = Answers()
    reviewer, out = _reviewer(answers)
    state = _state(first, second)
    assert isinstance(await reviewer.decide(first, state), Reject)
    assert isinstance(await reviewer.decide(second, state), Reject)
    assert answers.asked == 1
    assert "(end of input: rejected)" in out.getvalue()


@pytest.mark.parametrize(("preset", "expected"), [(True, Approve()), (False, Reject())])
async def test_preset_answers_never_read(preset: bool, expected: Approve | Reject) -> None:
    edit = _edit(1)
    reviewer, out = _reviewer(None, preset=preset)
    decision = await reviewer.decide(edit, _state(edit))
    assert type(decision) is type(expected)
    assert f"Apply this edit? [y/n/q] {'y (--yes)' if preset else 'n (--no)'}\n" in out.getvalue()


async def test_commands_are_shown_with_their_folder() -> None:
    command = PreparedCommand(edit_id="e1", call_id="c1", command="pytest -q", cwd="/ws")
    reviewer, out = _reviewer(Answers("n\n"))
    await reviewer.decide(command, _state(command))
    shown = out.getvalue()
    assert "[1/1] run_command\n$ pytest -q\n  (in the workspace root)\n" in shown
    assert shown.endswith("Run this command? [y/n/q] ")


async def test_an_edit_that_changes_nothing_says_so() -> None:
    edit = _edit(1).model_copy(update={"new_text": "x = 1\n"})
    reviewer, out = _reviewer(Answers("n\n"))
    await reviewer.decide(edit, _state(edit))
    assert "(this edit changes nothing)" in out.getvalue()


async def test_withdraw_ends_the_review() -> None:
    edit = _edit(1)
    answers = Answers("y\n")
    reviewer, _ = _reviewer(answers)
    await reviewer.withdraw()
    assert isinstance(await reviewer.decide(edit, _state(edit)), Reject)
    assert answers.asked == 0


def test_asking_needs_a_source_of_answers() -> None:
    with pytest.raises(ValueError, match="needs answers"):
        TerminalReviewer(root=ROOT, out=io.StringIO())


OFFERED = PreparedCommand(
    edit_id="offered-check",
    call_id="offered-check",
    command="python -m pytest -q tests/test_x.py",
    cwd="/ws",
    reason="",
)


@pytest.mark.parametrize(
    ("line", "approved", "stopped"),
    [("y\n", True, False), ("n\n", False, False), ("q\n", False, False), ("", False, True)],
)
async def test_a_command_offered_before_the_run_is_asked_like_one(
    line: str, approved: bool, stopped: bool
) -> None:
    out = io.StringIO()
    reviewer = Reviewer(root=ROOT, out=out, answers=Answers(line))

    decision = await reviewer.decide_command(OFFERED, "rune offers a check for this run (why)")

    assert isinstance(decision, Approve) is approved
    assert reviewer.stopped is stopped  # no input: nothing later is approved either
    shown = out.getvalue()
    assert (
        "rune offers a check for this run (why)\n$ python -m pytest -q tests/test_x.py\n" in shown
    )
    assert "(in the workspace root)" in shown
    assert "Run this command? [y/n/q] " in shown


@pytest.mark.parametrize(("preset", "approved"), [(True, True), (False, False)])
async def test_yes_and_no_answer_the_offer(preset: bool, approved: bool) -> None:
    reviewer = Reviewer(root=ROOT, out=io.StringIO(), preset=preset)

    decision = await reviewer.decide_command(OFFERED, "rune offers a check")

    assert isinstance(decision, Approve if approved else Reject)


async def test_a_checked_candidate_says_so_in_its_header() -> None:
    edit = _edit(1).model_copy(update={"checked": "passed", "check_note": "passes `pytest -q`"})
    reviewer, out = _reviewer(Answers("y\n"))
    await reviewer.decide(edit, _state(edit))
    assert "[1/1] edit_file src/m1.py · passes `pytest -q`\n" in out.getvalue()
