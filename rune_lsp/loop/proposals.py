"""What the loop makes of a turn's code blocks and of the check's verdicts.

Kept out of the runtime so its turn structure stays readable: these functions read and update a
`RunState`; the runtime calls them where they apply (a turn without calls, before the first
turn, after a turn whose edits landed). Reading the blocks is `answers.read_turn`'s; what the
run does with that reading (a call, a note, or the answer standing) is decided here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rune_lsp.answers.code.reading import CodeReading, FileEdit
from rune_lsp.linediff import same_lines
from rune_lsp.loop.messages import Message, RawToolCall, ToolCall
from rune_lsp.loop.ports import ToolExecutor
from rune_lsp.loop.prompts import (
    check_after_text,
    check_before_text,
    no_block_text,
    unchanged_text,
)
from rune_lsp.loop.state import CheckReport, RunState
from rune_lsp.loop.statuses import LANDED
from rune_lsp.loop.task import file_listing, is_test_path

#: Times per run the model is told why its code block was not taken as an edit.
MAX_BLOCK_NOTES = 2


def block_calls(
    state: RunState,
    reading: CodeReading | None,
    visible: str,
    *,
    code_first: bool,
    unchanged_notes: int | None = None,
) -> tuple[tuple[RawToolCall, ...], str | None]:
    """What a turn without calls makes of its code blocks (`reading`, from `answers.read_turn`):
    their edits as `edit_file` calls (reviewed like any other, each on its own file); else, at
    most `MAX_BLOCK_NOTES` times a run and never on the last turn, why no block was taken.
    `code_first`: the turn asked for code only, so an answer without a block is told so.
    `unchanged_notes`: when set, how many notes a run may spend on the current code sent back
    while the check fails, even word for word again (the runtime's call: with candidate fixes
    each such answer is a candidate that changed nothing, and its retry is sampled wider)."""
    layout = runs_unchanged(state, reading)
    if reading is not None and reading.edits and not layout:
        if restates_decision(state, reading.edits):
            return (), None  # quoting what the user just decided: the answer stands
        return edit_calls(reading), None
    refusal = reading.refusal if reading is not None else None
    # The file whose current code came back while the check fails. Asked to make a failing
    # check pass, the model showed the code as it is (bench/effect, 10_ranked and
    # 19_running_total: the failing function, word for word). Without a failing check, the
    # current code quoted ("the code is right") is an answer.
    sent = reading.unchanged[0] if reading is not None and reading.unchanged else None
    if layout and reading is not None:
        sent = reading.edits[0].path
    unchanged = False
    if sent is not None and state.check_fails_now and state.target:
        unchanged = True
        withheld, state.withheld_check = state.withheld_check, None
        refusal = unchanged_text(sent, state.target, withheld, layout=layout, beside=state.beside)
    if code_first and reading == CodeReading() and state.target and visible.strip():
        refusal = no_block_text(state.target)  # asked for code only, it answered without
    retries = unchanged and unchanged_notes is not None
    limit = max(MAX_BLOCK_NOTES, unchanged_notes or 0) if retries else MAX_BLOCK_NOTES
    if (
        refusal is None
        or state.block_notes >= limit
        or state.iterations_used >= state.iteration_budget
        or (not retries and _repeated(state, visible))
    ):
        return (), None
    state.block_notes += 1
    return (), refusal


def runs_unchanged(state: RunState, reading: CodeReading | None) -> bool:
    """The blocks change only blank lines, comments or layout of Python files while tests
    fail: the code they run is the code as it is now, so they are the current code sent back,
    not a fix. Qwen2.5-Coder 1.5B sent the module back without one blank line; taken as a fix,
    it was checked, failed, and proposed as the best candidate (bench/effect corpus_multi
    02_slugify, 2026-12-03). Only when the check's output counts failing tests: a check
    whose output counts none may be a linter or a formatter, which layout does change
    (`# noqa`, a wrapped line)."""
    if reading is None or not reading.edits or not state.target:
        return False
    if not state.check_fails_now or not state.failing_tests:
        return False
    return all(edit.layout_only for edit in reading.edits)


def restates_decision(state: RunState, edits: Sequence[FileEdit]) -> bool:
    """Every line the block's edits change is one of the lines of an edit the user just decided
    (the last turn that proposed edits): it re-proposes what they rejected, or takes back what
    they accepted. Issue 27 point 6: after a partial accept, Qwen2.5-Coder 1.5B's closing
    summary quoted the whole proposal, which read as a new edit of the rejected line;
    rejecting it again ended the run on the repeat guard. Such a block is not a proposal."""
    decided = _just_decided_lines(state)
    if not decided:
        return False
    for edit in edits:
        changed = _changed_lines(edit.old_text, edit.new_text)
        if not changed or not changed <= decided:
            return False
    return True


def _just_decided_lines(state: RunState) -> frozenset[str]:
    """The lines, removed or added, of the latest turn's `edit_file` calls the user decided
    (accepted in whole or in part, or rejected: their call is `ok` or `denied`; a `stale` one
    may rightly come again)."""
    lines: set[str] = set()
    for call, status in _latest_calls(state, ("edit_file",)):
        old, new = call.arguments.get("old_text"), call.arguments.get("new_text")
        if status in ("ok", "denied") and isinstance(old, str) and isinstance(new, str):
            lines |= _changed_lines(old, new)
    return frozenset(lines)


def _latest_calls(state: RunState, names: tuple[str, ...]) -> list[tuple[ToolCall, str | None]]:
    """The latest assistant turn's calls named `names`, each with its status in the run's call
    log (None while it has none)."""
    statuses = {record.call_id: record.status for record in state.call_log}
    for message in reversed(state.messages):
        calls = [call for call in message.tool_calls if call.name in names]
        if message.role == "assistant" and calls:
            return [(call, statuses.get(call.id)) for call in calls]
    return []


def _changed_lines(old: str, new: str) -> frozenset[str]:
    """The lines a change removes or adds, without their line ends and trailing blanks."""
    before = [line.rstrip() for line in old.splitlines()]
    after = [line.rstrip() for line in new.splitlines()]
    kept = same_lines(before, after)
    old_kept, new_kept = {i for i, _ in kept}, {j for _, j in kept}
    removed = {line for i, line in enumerate(before) if i not in old_kept}
    return frozenset(removed | {line for j, line in enumerate(after) if j not in new_kept})


def edit_calls(reading: CodeReading) -> tuple[RawToolCall, ...]:
    """A reading's edits as the `edit_file` calls they are proposed as."""
    return tuple(
        RawToolCall(
            name="edit_file",
            arguments={"path": e.path, "old_text": e.old_text, "new_text": e.new_text},
        )
        for e in reading.edits
    )


def _repeated(state: RunState, visible: str) -> bool:
    """The answer is, word for word, the one the last note was about: the model is stuck, and
    another note costs a turn for the same answer (bench/effect 10_ranked: the same block three
    times)."""
    if state.block_notes == 0:
        return False
    said = last_answer(state)
    return said is not None and said.strip() == visible.strip()


@dataclass(frozen=True)
class BlockAnswer:
    """An answer whose code block became the turn's edits."""

    text: str
    edit_ids: tuple[str, ...]

    def stands(self, state: RunState) -> bool:
        """Every edit of the block landed whole: the answer is the run's final one. With no
        check to hear, another turn tells the model only "applied"; Qwen2.5-Coder 1.5B then
        re-sent the same fix as a call (bench/effect 20_dedupe), or changed more."""
        statuses = {e.edit_id: e.status for e in state.edits}
        return all(statuses.get(edit_id) == "applied" for edit_id in self.edit_ids)


def block_answer(state: RunState) -> BlockAnswer | None:
    """The open turn's answer, when its calls were read from its code block."""
    turn = state.turn
    if not turn.from_block or not turn.pending:
        return None
    said = last_answer(state) or ""
    return BlockAnswer(said.strip(), tuple(change.edit_id for change in turn.pending))


def landed_edits(state: RunState) -> tuple[str, ...]:
    """The edits (not commands) that reached a file so far, by id."""
    return tuple(e.edit_id for e in state.edits if e.tool != "run_command" and e.status in LANDED)


def add_first_check(state: RunState, report: CheckReport, *, verifies: bool) -> None:
    """The check before the first turn: its verdict joins the task message, unless it
    `verifies` candidate fixes (loop/candidates.py) of a target that is no test. Then a
    failing verdict is withheld: the first turn is the task alone, as without a check, and
    the check judges the fix it gets. Shown the failing output first, Qwen2.5-Coder 1.5B
    fixed fewer of bench/effect's own tasks than without it (30 against 32 of 37, 2026-12-02,
    docs/performance.md): it sent the current code back. A test target keeps the verdict (a
    run stays on one only when it found no module under test to move to, runner/context.py)."""
    state.check_failing = not report.passed
    state.hear_check(report)
    if verifies and not report.passed and state.target and not is_test_path(state.target):
        state.withheld_check = report
        return
    task = state.messages[-1]  # the task: the last message before the first turn
    content = f"{task.content}\n\n{check_before_text(report, state.target, state.beside)}"
    state.messages[-1] = task.model_copy(update={"content": content})


async def add_check_after_edits(
    executor: ToolExecutor, state: RunState, report: CheckReport
) -> bool:
    """The verdict after a turn's edits landed, as the next input (after the results), with the
    run's target as it reads now when the check still fails.
    True when it settles the run: it passes now, having failed before the first turn."""
    state.hear_check(report)
    listing = None
    shown = _shown_after_edits(state)
    if not report.passed and shown is not None:
        current = await _current(executor, shown)
        listing = file_listing(shown, current) if current is not None else None
    named = shown if shown != state.target else None
    state.messages.append(Message(role="user", content=check_after_text(report, listing, named)))
    return report.passed and state.check_failing is not False


def _shown_after_edits(state: RunState) -> str | None:
    """The file a failing verdict shows as it reads now: the run's target, or on a test target
    the file the latest landed edit changed (the module under test). Shown the test again
    after its edit of textkit/report.py, Qwen2.5-Coder 1.5B re-sent its failed fix
    (bench/effect corpus_multi 08_word_count, 2026-12-02)."""
    target = state.target
    if target is None or not is_test_path(target):
        return target
    landed = [
        call.arguments.get("path")
        for call, status in _latest_calls(state, ("edit_file", "write_file"))
        if status == "ok"
    ]
    others = [path for path in landed if isinstance(path, str) and path != target]
    return others[-1] if others else target


async def _current(executor: ToolExecutor, target: str) -> str | None:
    try:
        return await executor.current_text(target)
    except Exception:  # an unreadable target: the verdict goes without the listing
        return None


def fixed_answer(state: RunState, report: CheckReport) -> str:
    """The answer of a run its check ended: the model's own words of the fixing turn."""
    said = last_answer(state) or ""
    return said.strip() or f"The check `{report.command}` passes after the change."


def last_answer(state: RunState) -> str | None:
    """The model's latest visible text in the history (None before its first answer)."""
    return next((m.content for m in reversed(state.messages) if m.role == "assistant"), None)
