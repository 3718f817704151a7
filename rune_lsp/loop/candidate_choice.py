"""Which candidate fix the user is shown, and the words that go with it (loop/candidates.py
runs the search): the best by `rank`, shown only when it `improves` on the code as it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rune_lsp.loop.messages import ToolCall
from rune_lsp.loop.state import CheckReport, PreparedEdit


@dataclass(frozen=True)
class Candidate:
    """One fix the model wrote: its answer, its calls and their prepared edits, and the
    check's verdict on them in the scratch copy (None: not checked, `problem` says why)."""

    number: int
    answer: str
    calls: tuple[ToolCall, ...]
    changes: tuple[PreparedEdit, ...]
    from_block: bool
    report: CheckReport | None = None
    problem: str = ""

    @property
    def passed(self) -> bool:
        return self.report is not None and self.report.passed

    @property
    def code(self) -> str:
        """What it changes, as the model wrote it: each call's new text."""
        parts = [c.arguments.get("new_text", c.arguments.get("content", "")) for c in self.calls]
        return "\n".join(part for part in parts if isinstance(part, str))

    @property
    def paths(self) -> tuple[str, ...]:
        """The files it changes, as the model named them (relative to the workspace)."""
        named = (c.arguments.get("path") for c in self.calls)
        return tuple(dict.fromkeys(path for path in named if isinstance(path, str)))

    @property
    def key(self) -> tuple[tuple[str, str], ...]:
        """The files it makes: two candidates with one key get one check."""
        return tuple(sorted((change.path, change.new_text) for change in self.changes))


def rank(candidate: Candidate) -> tuple[int, float, int]:
    """Sorts best first: a pass; then the fewest failing tests the check's output counts
    (`CheckReport.failures`); then a checked one whose output counts none (a crash, a time-out,
    another tool); then one that was never checked; ties go to the earlier candidate."""
    report = candidate.report
    if report is None:
        return (3, math.inf, candidate.number)
    if report.passed:
        return (0, 0, candidate.number)
    if report.failures is not None and not report.timed_out:
        return (1, report.failures, candidate.number)
    return (2, math.inf, candidate.number)


def improves(candidate: Candidate, failing_now: int | None) -> bool:
    """Whether the best candidate is worth showing: it does not fail more tests than the code
    as it is (`failing_now`: `RunState.failing_tests` while the check fails; None: unknown, and
    so is whether it got worse). On corpus_multi 07_config_get the best of four failing
    candidates failed 2 tests where the code failed 1, and was proposed as the one failing
    "the fewest" (bench/effect, 2026-12-03). A count the check's output does not give (a time-
    out, a check that cannot run in the scratch copy) is no evidence: shown, as before."""
    report = candidate.report
    if report is None or report.failures is None or not failing_now:
        return True
    return report.failures <= failing_now


def worse_note(chosen: Candidate, command: str, tried: int, failing_now: int) -> str:
    """Why a run ends with nothing proposed when the best candidate does not `improve`."""
    fails = chosen.report.failures if chosen.report is not None else None
    return (
        f"none of {tried} candidate fixes passed `{command}`, and the best fails {fails} tests, "
        f"more than the {failing_now} the code fails as it is: none was proposed"
    )


def review_note(chosen: Candidate, command: str, tried: int, failing_now: int | None) -> str:
    """The sentence the review shows with the chosen candidate's edits. A failing one is set
    against the code as it is (`failing_now`, when counted), so the user sees whether it helps
    at all: `improves` lets one that fails as many tests through."""
    if chosen.passed:
        return f"passes `{command}`"
    report = chosen.report
    counted = ""
    if report is not None and report.failures is not None:
        against = _against(report.failures, failing_now)
        counted = f"; this one fails the fewest tests ({report.failures}{against})"
    return f"fails `{command}`: none of {tried} candidate fixes passed it{counted}"


def _against(failures: int, failing_now: int | None) -> str:
    if not failing_now:
        return ""
    if failures == failing_now:
        return ", as many as the code as it is"
    return f"; the code as it is fails {failing_now}"
