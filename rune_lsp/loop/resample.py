"""A fresh run's first answer that is the code as it is: the same request again, sampled wider.

Without a check nothing tells a right answer from a wrong one, and a code-only first answer
that sends the code back as it is reads "the code is right": the run ends with it. Asked to fix
a bug, Qwen2.5-Coder 0.5B answered 22 of the bench's 37 buggy programs so; the very same request
sampled again at 0.8, then 1.0 (no note, the unchanged answer not in the history) fixed 9 of
them; the 1.5B sent 2 back and 1 of those was fixed; on the bench, 14 -> 19 and 31 -> 32 of 37
(docs/performance.md, "The 0.5B model": "The code sent back on a blind run"). Told about its
unchanged answer instead, the 0.5B answered in prose and fixed none (the same section).

With a failing check kept from the first request (candidate fixes: loop/proposals.py
`add_first_check`), that request is the blind one, and it is asked again too, before the note
that carries the check: the 0.5B fixed 3 tasks more of 17 so ("The code sent back with the
check"). Not where the failing check is in the task (a test target the run stayed on, or a
single candidate; a run on a failing test mostly moves to its module, runner/context.py):
asked again there, the 1.5B fixed no task more of corpus_multi's 11, and one request took 72 s
("Multi-file corpus": "The first request asked again on a test target"). With a passing
check, the code as it is may well be the answer.
"""

from __future__ import annotations

from rune_lsp.answers import TurnKind
from rune_lsp.answers.code.reading import CodeReading
from rune_lsp.loop.proposals import runs_unchanged
from rune_lsp.loop.state import RunState

#: The temperatures of the request asked again, one per retry (never below the run's own).
RESAMPLE_TEMPERATURES = (0.8, 1.0)


def resample_temperature(
    state: RunState,
    reading: CodeReading | None,
    *,
    kind: TurnKind,
    base: float,
    resampled: int,
) -> float | None:
    """The temperature to ask the code-first request again at, after its `resampled`-th answer
    (`reading`) took nothing from the code as it is, or None: that answer stands.

    Only on a fresh run's first request (a follow-up's question may be answered with the code
    as it is), with no check or a failing one kept from it, and while the turns it needs are
    left after the one asked: each request is one of the budget's turns, and a fix the user
    rejects is answered by another (asking away the last turn ended such runs `failed`); with
    the check, an answer that changes nothing again hears its note first, one turn more.
    """
    if kind != "code_first" or resampled >= len(RESAMPLE_TEMPERATURES):
        return None
    if reading is None or reading.refusal is not None or not _sent_back(state, reading):
        return None
    if state.check_failing is None:
        needed = 1  # the answer to a rejected fix
    elif state.withheld_check is not None:
        needed = 2  # the note with the check, then the answer to a rejected fix
    else:
        return None
    if state.iterations_used + needed >= state.iteration_budget:
        return None
    if sum(message.role == "user" for message in state.messages) != 1:
        return None
    return max(base, RESAMPLE_TEMPERATURES[resampled])


def _sent_back(state: RunState, reading: CodeReading) -> bool:
    """The answer is the code as it is: word for word, or (while tests fail) changed only in
    blank lines, comments or layout. Sent back without one blank line, the 1.5B's first
    answer of corpus_multi 02_slugify was not asked again, and its three notes got the same
    code three times (docs/performance.md, "Multi-file corpus")."""
    if not reading.edits:
        return bool(reading.unchanged)
    return runs_unchanged(state, reading)


def first_answer_stands(state: RunState) -> bool:
    """Asked again and still no fix (the code again, prose, a block that places nowhere):
    whether the first answer is the run's answer, as it was before asking. Only without a
    check; with a failing one the last answer hears its note (loop/proposals.py)."""
    return state.check_failing is None
