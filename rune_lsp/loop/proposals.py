"""What the loop makes of a turn's code blocks and of the check's verdicts.

Kept out of the runtime so its turn structure stays readable: these functions read and update a
`RunState`; the runtime calls them where they apply (whether a turn is asked for code, a turn
without calls, before the first turn, after a turn whose edits landed).
"""

from __future__ import annotations

from dataclasses import dataclass

from rune_lsp.answers.code.reading import CodeReading, read_code
from rune_lsp.interface import FirstTurn
from rune_lsp.loop.ports import ToolExecutor
from rune_lsp.loop.prompts import check_after_text, check_before_text, unchanged_text
from rune_lsp.loop.state import CheckReport, Message, RawToolCall, RunState
from rune_lsp.loop.statuses import LANDED
from rune_lsp.loop.task import file_listing

#: Times per run the model is told why its code block was not taken as an edit.
MAX_BLOCK_NOTES = 2


async def block_calls(
    executor: ToolExecutor, state: RunState, visible: str, *, can_edit: bool
) -> tuple[tuple[RawToolCall, ...], str | None]:
    """A turn without calls whose code block edits the run's target: that edit as an
    `edit_file` call (reviewed like any other); else, at most `MAX_BLOCK_NOTES` times a run and
    never on the last turn, why the block was not taken."""
    if state.target is None or not can_edit or "```" not in visible:
        return (), None
    reading = await read_answer_code(executor, state.target, visible)
    if reading is None:  # the target is unreadable: the answer stands
        return (), None
    if reading.edits:
        return edit_calls(reading), None
    refusal = reading.refusal
    if reading.unchanged and state.check_fails_now:
        # Asked to make a failing check pass, it showed the code as it is (bench/effect,
        # 10_ranked and 19_running_total: the failing function, word for word). Without a
        # failing check, the current code quoted ("the code is right") is an answer.
        refusal = unchanged_text(state.target)
    if (
        refusal is None
        or state.block_notes >= MAX_BLOCK_NOTES
        or state.iterations_used >= state.iteration_budget
        or _repeated(state, visible)
    ):
        return (), None
    state.block_notes += 1
    return (), refusal


async def read_answer_code(executor: ToolExecutor, target: str, visible: str) -> CodeReading | None:
    """What `visible`'s code blocks propose for `target`; None when it cannot be read."""
    current = await _current(executor, target)
    return None if current is None else read_code(visible, {target: current}, target)


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


def asks_for_code(first_turn: FirstTurn, state: RunState, *, can_edit: bool) -> bool:
    """Whether this turn is a fix's first, asked for code rather than calls (`LoopConfig.
    first_turn` "code"): offered tools, Qwen2.5-Coder 1.5B answered a failing test with
    `edit_file` calls on lines of pytest's report; offered none, it wrote the corrected
    function (bench/effect, 12 tasks with checkCommand: 9 fixed against 4, docs/performance.md).
    Its block becomes an `edit_file` call like any other (`block_calls`)."""
    return (
        first_turn == "code"
        and state.iterations_used == 0
        and state.target is not None
        and can_edit
    )


def landed_edits(state: RunState) -> tuple[str, ...]:
    """The edits (not commands) that reached a file so far, by id."""
    return tuple(e.edit_id for e in state.edits if e.tool != "run_command" and e.status in LANDED)


def add_first_check(state: RunState, report: CheckReport) -> None:
    """The check before the first turn: its verdict joins the task message."""
    state.check_failing = state.check_fails_now = not report.passed
    task = state.messages[1]
    content = f"{task.content}\n\n{check_before_text(report, state.target)}"
    state.messages[1] = task.model_copy(update={"content": content})


async def add_check_after_edits(
    executor: ToolExecutor, state: RunState, report: CheckReport
) -> bool:
    """The verdict after a turn's edits landed, as the next input (after the results), with the
    run's target as it reads now when the check still fails.
    True when it settles the run: it passes now, having failed before the first turn."""
    state.check_fails_now = not report.passed
    listing = None
    if not report.passed and state.target is not None:
        current = await _current(executor, state.target)
        listing = file_listing(state.target, current) if current is not None else None
    state.messages.append(Message(role="user", content=check_after_text(report, listing)))
    return report.passed and state.check_failing is not False


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
