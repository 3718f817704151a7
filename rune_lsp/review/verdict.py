"""The verdict on one reviewed edit, and how it is worded for the model.

review/reconcile.py finds what became of each hunk (landed, dropped, some lines, stale); this
module is the one mapping from those fates to the edit's status (`applied`, `partial`,
`rejected`, `stale`) and the detail the model reads, naming hunks and lines as the model saw
them in the proposal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rune_lsp.lines import strip_terminator
from rune_lsp.loop.records import HunkRecord
from rune_lsp.loop.statuses import EditStatus, ReconcileStatus
from rune_lsp.review.hunks import Hunk, changed_lines
from rune_lsp.text_clip import shorten


@dataclass(frozen=True, slots=True)
class Reconciliation:
    """The verdict on one edit; `detail` is written for the model."""

    status: ReconcileStatus
    kept: tuple[int, ...]  # hunk indexes (0-based) whose proposed text is in the result
    dropped: tuple[int, ...]  # hunk indexes the user discarded
    detail: str
    fates: tuple[HunkFate, ...] = ()  # each hunk's, where the verdict was found hunk by hunk

    def hunk_records(self) -> tuple[HunkRecord, ...]:
        """Each hunk's fate for the run result, when the hunks did not all fare alike (decided
        one by one); () when one word says it for the whole edit."""
        records = tuple(_record(fate) for fate in self.fates)
        if len({(r.status, r.reason) for r in records}) <= 1:
            return ()
        return records

    def reason(self) -> str:
        """The user's words for what they rejected, when all of it was rejected for one."""
        said = {fate.reason.strip() for fate in self.fates if not fate.landed and not fate.stale}
        return said.pop() if len(said) == 1 else ""


@dataclass(frozen=True, slots=True)
class HunkFate:
    """What became of one hunk, as the verdict names it."""

    index: int
    landed: bool  # its proposed text, or the chosen lines of it, is in the result
    lines: tuple[int, ...] | None = None  # only these changed lines (hunks.LINE_NUMBERING)
    reason: str = ""  # the user's own words with a rejection
    stale: bool = False  # the user changed those lines before it could land


def verdict(hunks: Sequence[Hunk], fates: Sequence[HunkFate], *, note: str = "") -> Reconciliation:
    """The one mapping from what became of each hunk to the edit's status, and its detail.

    All landed whole: `applied`. Nothing landed: `stale` if a change of the user's got in the
    way of a hunk (the model may propose it again), else `rejected`. Anything between:
    `partial`. `hunks` are the hunks as proposed, so the lines named are the ones the model saw.
    """
    kept = tuple(f.index for f in fates if f.landed)
    dropped = tuple(f.index for f in fates if not f.landed)
    if not dropped and all(f.lines is None for f in fates):
        status: ReconcileStatus = "applied"
    elif not kept:
        status = "stale" if any(f.stale for f in fates) else "rejected"
    else:
        status = "partial"
    plain = all(f.lines is None and not f.reason and not f.stale for f in fates)
    detail = (
        _plain_detail(hunks, status, kept, dropped, note)
        if plain
        else _hunk_detail(hunks, status, fates, note)
    )
    return Reconciliation(
        status=status, kept=kept, dropped=dropped, detail=detail, fates=tuple(fates)
    )


def _record(fate: HunkFate) -> HunkRecord:
    status: EditStatus
    if fate.landed:
        status = "applied" if fate.lines is None else "partial"
    else:
        status = "stale" if fate.stale else "rejected"
    return HunkRecord(hunk_id=fate.index + 1, status=status, reason=fate.reason.strip() or None)


def _plain_detail(
    hunks: Sequence[Hunk],
    status: ReconcileStatus,
    kept: tuple[int, ...],
    dropped: tuple[int, ...],
    note: str,
) -> str:
    """Whole hunks kept or discarded (what VS Code's preview can do)."""
    total = len(hunks)
    suffix = f" ({note})" if note else ""
    if status == "applied":
        if not total:
            return f"applied: the user accepted the whole edit{suffix}."
        return (
            f"applied: the user accepted the whole edit "
            f"({_count(total)}, {_where(hunks, kept)}){suffix}."
        )
    if status == "rejected":
        return (
            f"rejected: the user discarded {_all(total)} ({_where(hunks, dropped)}); "
            f"the file is unchanged{suffix}."
        )
    return (
        f"partially applied: kept {_numbers(kept)} of {total} ({_where(hunks, kept)}); "
        f"the user discarded {_numbers(dropped)} ({_where(hunks, dropped)}){suffix}."
    )


_OPENING: dict[ReconcileStatus, str] = {
    "applied": "applied",
    "partial": "partially applied",
    "rejected": "rejected",
    "stale": "stale",
}


def _hunk_detail(
    hunks: Sequence[Hunk], status: ReconcileStatus, fates: Sequence[HunkFate], note: str
) -> str:
    """Hunk by hunk, with the lines kept, the user's reasons and what went stale."""
    reasons = {fate.reason.strip() for fate in fates}
    if status == "rejected" and len(reasons) == 1 and not any(f.stale for f in fates):
        # Reject edit with a reason: one sentence, not the same reason once per hunk.
        indexes = [fate.index for fate in fates]
        return (
            f"rejected: the user rejected {_all(len(hunks))} ({_where(hunks, indexes)}): "
            f"{reasons.pop()}. The file is unchanged."
        )
    by_index = {hunk.index: hunk for hunk in hunks}
    parts: list[str] = []
    for fate in fates:
        hunk = by_index[fate.index]
        where = f"hunk {hunk.number} of {len(hunks)} ({_where(hunks, [hunk.index])})"
        if fate.landed and fate.lines is not None:
            parts.append(f"kept part of {where}: {_kept_lines(hunk, fate.lines)}")
        elif fate.landed:
            parts.append(f"kept {where}")
        elif fate.stale:
            parts.append(f"{where} is stale: the user changed those lines after the proposal")
        else:
            reason = fate.reason.strip()
            parts.append(f"the user rejected {where}" + (f": {reason}" if reason else ""))
    text = f"{_OPENING[status]}: " + "; ".join(parts)
    if note:
        text += f" ({note})"
    text += "."
    if status == "rejected":
        text += " The file is unchanged."
    if any(f.stale for f in fates):
        text += " Read the file again before proposing the stale part anew."
    return text


def _kept_lines(hunk: Hunk, lines: Sequence[int]) -> str:
    """Which changed lines of a partly accepted hunk took effect, quoted (bounded)."""
    chosen = set(lines)
    listed = list(enumerate(changed_lines(hunk), start=1))
    took = [f"{sign}{_quoted(line)}" for n, (sign, line) in listed if n in chosen]
    left = [f"{sign}{_quoted(line)}" for n, (sign, line) in listed if n not in chosen]
    return f"took effect {_listed(took)}; not {_listed(left)}"


def _listed(items: Sequence[str], most: int = 6) -> str:
    shown = ", ".join(items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")


def _quoted(line: str, most: int = 60) -> str:
    text = strip_terminator(line).strip()
    return repr(shorten(text, most))


def _count(total: int) -> str:
    return f"{total} hunk" if total == 1 else f"{total} hunks"


def _all(total: int) -> str:
    return "the only hunk" if total == 1 else f"all {total} hunks"


def _numbers(indexes: Sequence[int]) -> str:
    """`hunk 2` or `hunks 1, 3` (1-based, as people count)."""
    word = "hunk" if len(indexes) == 1 else "hunks"
    return f"{word} " + ", ".join(str(index + 1) for index in indexes)


def _where(hunks: Sequence[Hunk], indexes: Sequence[int]) -> str:
    """The old-file lines of the given hunks: `lines 10-12, 40` or `line 25`."""
    by_index = {hunk.index: hunk for hunk in hunks}
    spans = [_lines(by_index[index]) for index in indexes]
    single = len(spans) == 1 and "-" not in spans[0]
    return ("line " if single else "lines ") + ", ".join(spans)


def _lines(hunk: Hunk) -> str:
    first, last = hunk.old_start + 1, hunk.old_end
    # An insertion replaces no line: name the line it goes before.
    return str(first) if last <= first else f"{first}-{last}"
