"""One pending edit reviewed hunk by hunk (mode B): who decided what, and where the hunks are now.

Pure state, no LSP: the server keeps one per open review, replaces it on every command and on
every change of the document, and reads from it what to show and what to send. Hunk ids are
the hunks' 1-based numbers in the proposal; they stay the same however the hunks move.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from rune_lsp.review.errors import ReviewError
from rune_lsp.review.hunks import Hunk, apply_hunks, compute_hunks, keep_lines
from rune_lsp.review.merge import rebase_hunks, renumber
from rune_lsp.review.verdict import HunkFate, Reconciliation, verdict

Verdict = Literal["accept", "reject"]


class UnknownHunkError(ReviewError):
    """A hunk id the edit does not have, or a hunk already resolved."""


@dataclass(frozen=True, slots=True)
class Accepted:
    lines: tuple[int, ...] | None = None  # None: the whole hunk


@dataclass(frozen=True, slots=True)
class Rejected:
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Stale:
    """A change of the user's overlapped the hunk before it could land."""


Resolution = Accepted | Rejected | Stale


@dataclass(frozen=True, slots=True)
class HunkReview:
    proposed: tuple[Hunk, ...]  # on the text the model saw: what the model is told names these
    base: str  # the document's text now; `placed` fit it
    placed: tuple[Hunk, ...]  # every hunk that is not stale, positioned on `base`
    # Whether the hunks may move with changes elsewhere: an `edit_file` states a local change;
    # a `write_file` states the whole file, so any other change makes it stale (tools/rebase).
    follows: bool = True
    resolutions: Mapping[int, Resolution] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def start(cls, old_text: str | None, new_text: str, *, follows: bool) -> HunkReview:
        base = old_text or ""
        hunks = compute_hunks(base, new_text)
        return cls(proposed=hunks, base=base, placed=hunks, follows=follows)

    # --- reading ------------------------------------------------------------------------------

    @property
    def pending(self) -> tuple[Hunk, ...]:
        """Hunks still waiting for the user, where they are now."""
        return tuple(h for h in self.placed if h.index not in self.resolutions)

    @property
    def done(self) -> bool:
        return len(self.resolutions) == len(self.proposed)

    @property
    def stale(self) -> tuple[int, ...]:
        return tuple(i for i, r in self.resolutions.items() if isinstance(r, Stale))

    def pending_hunk(self, hunk_id: int) -> Hunk:
        for hunk in self.pending:
            if hunk.number == hunk_id:
                return hunk
        numbers = ", ".join(str(h.number) for h in self.pending) or "none"
        raise UnknownHunkError(f"no pending hunk {hunk_id} (pending: {numbers})")

    def chosen(self) -> tuple[Hunk, ...]:
        """The accepted hunks, cut to their chosen lines, positioned on `base`: what to send."""
        picked: list[Hunk] = []
        for hunk in self.placed:
            resolution = self.resolutions.get(hunk.index)
            if isinstance(resolution, Accepted):
                lines = resolution.lines
                picked.append(hunk if lines is None else keep_lines(hunk, lines))
        return renumber(picked)

    def result_text(self) -> str:
        return apply_hunks(self.base, self.chosen())

    def verdict(self, *, landed: bool) -> Reconciliation:
        """The edit's status and detail once decided; `landed`: the chosen hunks reached the
        document (False: nothing did, e.g. nothing was accepted)."""
        fates = []
        for hunk in self.proposed:
            resolution = self.resolutions.get(hunk.index, Rejected())
            if isinstance(resolution, Accepted):
                fates.append(HunkFate(hunk.index, landed=landed, lines=resolution.lines))
            elif isinstance(resolution, Stale):
                fates.append(HunkFate(hunk.index, landed=False, stale=True))
            else:
                fates.append(HunkFate(hunk.index, landed=False, reason=resolution.reason))
        return verdict(self.proposed, fates)

    # --- deciding -----------------------------------------------------------------------------

    def resolve(
        self, hunk_id: int, choice: Verdict, *, lines: Sequence[int] | None = None, reason: str = ""
    ) -> HunkReview:
        """One hunk accepted (maybe only `lines` of it) or rejected. Raises UnknownHunkError,
        or LineSelectionError for lines the hunk does not have."""
        hunk = self.pending_hunk(hunk_id)
        resolution: Resolution
        if choice == "reject":
            resolution = Rejected(reason=reason)
        elif lines is None or keep_lines(hunk, lines) is hunk:  # validates; all lines = whole
            resolution = Accepted()
        else:
            resolution = Accepted(lines=tuple(sorted(set(lines))))
        return self._with({hunk.index: resolution})

    def resolve_rest(self, choice: Verdict, *, reason: str = "") -> HunkReview:
        """Every hunk still pending accepted or rejected (Accept edit / Reject edit)."""
        rest: Resolution = Accepted() if choice == "accept" else Rejected(reason=reason)
        return self._with({hunk.index: rest for hunk in self.pending})

    def follow(self, text: str | None) -> HunkReview:
        """The review on the document's new text: hunks a change did not come near move with
        it; pending or accepted hunks it overlapped or touched become stale."""
        if text == self.base:
            return self
        if text is None or not self.follows:
            moved: tuple[Hunk, ...] = ()
            conflicts = tuple(h.index for h in self.placed)
        else:
            rebased = rebase_hunks(self.base, text, self.placed)
            moved, conflicts = rebased.moved, rebased.conflicts
        stale = {
            index: Stale()
            for index in conflicts
            if not isinstance(self.resolutions.get(index), Rejected)
        }
        return replace(self._with(stale), base=text or "", placed=moved)

    def _with(self, resolutions: Mapping[int, Resolution]) -> HunkReview:
        merged = {**self.resolutions, **resolutions}
        return replace(self, resolutions=MappingProxyType(merged))


__all__ = [
    "Accepted",
    "HunkReview",
    "Rejected",
    "Resolution",
    "Stale",
    "UnknownHunkError",
    "Verdict",
]
