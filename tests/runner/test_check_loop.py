"""The runner runs a real check for the loop: before the first turn, after each accepted edit."""

from __future__ import annotations

import shlex
import sys

from rune_lsp.runner.verify import FEED_CHARS, FEED_LINES
from tests.loop.fakes import ScriptedModel, answer, edit, turn
from tests.runner.conftest import RecordingReviewer, Rig

#: Counts its runs in `check-runs`; passes when add(2, 3) == 5. No bytecode: a fixed file of
#: the same size written in the same second would otherwise be read from a stale .pyc.
CHECK = shlex.join(
    [
        sys.executable,
        "-c",
        "import sys; sys.dont_write_bytecode = True; open('check-runs', 'a').write('x'); "
        "import calc; got = calc.add(2, 3); print('add(2, 3) =', got); "
        "sys.exit(0 if got == 5 else 1)",
    ]
)
PROSE_FIX = (
    "The function subtracts instead of adding. Corrected:\n\n"
    "```python\ndef add(a, b):\n    return a + b\n```\n"
)


def runs(rig: Rig) -> int:
    marker = rig.root / "check-runs"
    return len(marker.read_text()) if marker.exists() else 0


async def test_the_failing_check_is_in_the_first_prompt_and_the_pass_ends_the_run(
    rig: Rig,
) -> None:
    model = ScriptedModel.of(turn(edit("calc.py", "a - b", "a + b"), text="Sign fixed."))
    result = await rig.driver(model, check=CHECK).start("c-1")

    first = model.calls[0].messages[1].content
    assert "failed (exit 1) on the current code" in first
    assert "add(2, 3) = -1" in first
    assert result.outcome == "completed"
    assert result.verified is True
    assert len(model.calls) == 1  # the passing check ended the run
    assert result.answer.startswith("Sign fixed.")
    assert "passed (exit 0)" in result.answer
    # Before the first turn and after the edit; the verification reused the second one.
    assert runs(rig) == 2


async def test_a_prose_code_block_fixes_add_and_is_verified(rig: Rig) -> None:
    reviewer = RecordingReviewer()
    model = ScriptedModel.of(answer(PROSE_FIX))
    result = await rig.driver(model, reviewer, check=CHECK).start("c-2")

    assert [c.tool for c in reviewer.seen] == ["edit_file"]  # reviewed like any edit
    assert (rig.root / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert [(e.tool, e.status) for e in result.edits] == [("edit_file", "applied")]
    assert result.verified is True


async def test_a_still_failing_check_is_handed_back_until_it_passes(rig: Rig) -> None:
    model = ScriptedModel.of(
        turn(edit("calc.py", "a - b", "a * b")),
        turn(edit("calc.py", "a * b", "a + b")),
    )
    result = await rig.driver(model, check=CHECK).start("c-3")

    told = model.calls[1].messages[-1]
    assert told.role == "user" and "failed (exit 1)" in told.content
    assert "add(2, 3) = 6" in told.content
    assert result.verified is True
    assert [e.status for e in result.edits] == ["applied", "applied"]
    assert runs(rig) == 3


async def test_a_check_that_passes_before_any_change_says_so(rig: Rig) -> None:
    (rig.root / "calc.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    model = ScriptedModel.of(answer("add is already right."))
    result = await rig.driver(model, check=CHECK).start("c-4")

    assert "passes already (exit 0)" in model.calls[0].messages[1].content
    assert (result.outcome, result.edits, result.verified) == ("completed", (), None)


async def test_the_model_reads_only_the_tail_of_a_long_check_output(rig: Rig) -> None:
    noisy = shlex.join(
        [
            sys.executable,
            "-c",
            "import sys; [print(f'line {n} ' + 'x' * 150) for n in range(300)]; sys.exit(1)",
        ]
    )
    model = ScriptedModel.of(answer("I see."))
    await rig.driver(model, check=noisy).start("c-5")

    task = model.calls[0].messages[1].content
    assert "line 299 " in task and "line 200 " not in task
    shown = task[task.index("```") : task.rindex("```") + 3]  # the output block alone
    assert len(shown) < FEED_CHARS + 200
    assert shown.count("\nline ") <= FEED_LINES


async def test_a_fix_that_never_passes_is_not_verified(rig: Rig) -> None:
    model = ScriptedModel.of(turn(edit("calc.py", "a - b", "a * b")), answer("Tried."))
    result = await rig.driver(model, check=CHECK).start("c-6")
    assert (result.outcome, result.verified) == ("completed", False)
    assert runs(rig) == 2  # the check after the edit stands as the verification
