"""Dedup, circuit breaker and exact-repeat guard: pure functions over the run's bookkeeping.

- Dedup: identical calls (same signature) inside one model turn run once; every call id still
  gets that result.
- Circuit breaker: per signature, a streak of failures (`ToolOutcome.is_failure`) with no success
  of that signature in between. Two in a row stop the run. A success clears the streak; a skipped
  call and a user's rejection neither extend nor clear it (a rejection is the user's choice, not
  a tool failing).
- Exact-repeat guard: per signature, how many times in a row it produced the identical result.
  At `warn_at` the result carries a note; a call whose signature already produced the identical
  result `block_at - 1` times is not run. A different result starts the count again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from rune_lsp.loop import statuses
from rune_lsp.loop.state import RepeatEntry, ToolOutcome

BREAKER_LIMIT = 2


# --- dedup ----------------------------------------------------------------------------------


def first_occurrences(signatures: Sequence[str | None]) -> list[int | None]:
    """For each position, the index of an earlier identical signature, or None.

    None signatures (calls that never run, e.g. invalid ones) are never deduplicated.
    """
    seen: dict[str, int] = {}
    primaries: list[int | None] = []
    for index, signature in enumerate(signatures):
        if signature is None:
            primaries.append(None)
        elif signature in seen:
            primaries.append(seen[signature])
        else:
            seen[signature] = index
            primaries.append(None)
    return primaries


# --- circuit breaker ------------------------------------------------------------------------


def counts_for_breaker(outcome: ToolOutcome) -> bool | None:
    """True for a failure, False for a success, None for outcomes that leave a streak alone."""
    return statuses.counts_for_breaker(outcome.call_status)


def update_streaks(
    streaks: Mapping[str, int], signature: str, outcome: ToolOutcome
) -> dict[str, int]:
    updated = dict(streaks)
    verdict = counts_for_breaker(outcome)
    if verdict is True:
        updated[signature] = updated.get(signature, 0) + 1
    elif verdict is False:
        updated.pop(signature, None)
    return updated


def breaker_tripped(streaks: Mapping[str, int], signature: str) -> bool:
    return streaks.get(signature, 0) >= BREAKER_LIMIT


def breaker_error(name: str) -> str:
    return f"tool {name} failed {BREAKER_LIMIT} consecutive times with identical arguments"


# --- exact-repeat guard ---------------------------------------------------------------------


def result_hash(outcome: ToolOutcome) -> str:
    digest = hashlib.sha256(f"{outcome.status}\0{outcome.content}".encode()).hexdigest()
    return digest[:32]


def repeat_blocked(repeats: Mapping[str, RepeatEntry], signature: str, block_at: int) -> bool:
    """Would this call be the `block_at`-th identical call with an identical result?"""
    entry = repeats.get(signature)
    return entry is not None and entry.count >= block_at - 1


def record_repeat(
    repeats: Mapping[str, RepeatEntry], signature: str, observed: str
) -> dict[str, RepeatEntry]:
    updated = dict(repeats)
    entry = updated.get(signature)
    count = entry.count + 1 if entry is not None and entry.result_hash == observed else 1
    updated[signature] = RepeatEntry(result_hash=observed, count=count)
    return updated


def repeat_warning(name: str, count: int, block_at: int) -> str:
    return (
        f"[Note: {name} has now been called {count} times with these exact arguments and "
        "returned this identical result each time. Do not call it again with the same "
        "arguments: use the result you have or try something different. "
        f"Identical call number {block_at} will be blocked and the run will end.]"
    )


def repeat_skip_note(name: str, count: int) -> str:
    return (
        f"Skipped: {name} was already called {count} times with these exact arguments and "
        "returned the identical result each time, so it was not run again. The run is ending."
    )


def repeat_error(name: str, block_at: int) -> str:
    return f"repeat guard: {name} blocked after {block_at} identical calls"
