"""What must hold after any `rune.fixThis`, whatever the model said.

A real model's answers cannot be scripted, so the live tests assert the guarantees instead: a
typed outcome within the budget, a receipt whose tool-call log pairs with the result, nothing on
disk that the user did not accept, guards that stop a looping model, and a `verified` that
matches the code on disk.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from rune_lsp.store.receipt import Receipt
from tests.e2e.wire import WireResult
from tests.live.workspace import Snapshot, add_works, changed_files, snapshot

READ_ONLY_TOOLS = frozenset({"read_file", "list_dir", "search"})
FILE_TOOLS = frozenset({"edit_file", "write_file"})
LANDED = frozenset({"applied", "partial"})
REPEAT_ERROR = "repeat guard:"
BREAKER_ERROR = "consecutive times with identical arguments"


@dataclass(frozen=True)
class RunContext:
    """Where a run worked and what was there before it."""

    workspace: Path
    state_dir: Path
    before: Snapshot
    repeat_block_at: int = 3
    checked: bool = False  # whether `checkCommand` was configured (the add check)
    module: str = "calc"  # the module holding the broken add


def load_receipt(result: WireResult, state_dir: Path) -> Receipt:
    assert result.receipt is not None, "the run result names no receipt"
    path = Path(result.receipt)
    assert path.is_file(), f"receipt {path} was not written"
    assert path.resolve().is_relative_to(state_dir.resolve()), f"{path} is outside {state_dir}"
    receipt = Receipt.model_validate_json(path.read_text(encoding="utf-8"))
    assert receipt.run_id == result.run_id
    return receipt


def assert_run_invariants(result: WireResult, context: RunContext) -> Receipt:
    """Every guarantee at once; returns the receipt for further checks."""
    assert_typed_end(result)
    receipt = load_receipt(result, context.state_dir)
    assert_calls_paired(result, receipt)
    assert_nothing_landed_unaccepted(result, context)
    assert_guards_explain_the_stop(result, receipt)
    if context.checked:
        assert_verified_matches_disk(result, context)
    return receipt


def assert_typed_end(result: WireResult) -> None:
    assert 0 <= result.iterations_used <= result.iteration_budget
    if result.outcome == "completed":
        assert result.error is None
        assert result.answer.strip(), "a completed run with no answer"
    if result.outcome == "failed":
        assert result.error, "a failed run must say why"


def assert_calls_paired(result: WireResult, receipt: Receipt) -> None:
    """The receipt's tool-call log is the result's list of calls, each with one result."""
    logged = [(call.name, call.status) for call in receipt.tool_calls]
    assert logged == result.calls()
    ids = [call.call_id for call in receipt.tool_calls]
    assert len(ids) == len(set(ids)), f"a call id got two results: {ids}"
    assert [(e.edit_id, e.status) for e in receipt.edits] == [
        (e.edit_id, e.status) for e in result.edits
    ]


def landed_paths(result: WireResult) -> set[str]:
    return {e.path for e in result.edits if e.tool in FILE_TOOLS and e.status in LANDED}


def assert_nothing_landed_unaccepted(result: WireResult, context: RunContext) -> None:
    changed = changed_files(context.before, snapshot(context.workspace))
    unaccepted = changed - landed_paths(result)
    assert not unaccepted, f"files changed without an accepted edit: {sorted(unaccepted)}"


def assert_guards_explain_the_stop(result: WireResult, receipt: Receipt) -> None:
    error = result.error or ""
    if error.startswith(REPEAT_ERROR):
        assert result.outcome == "incomplete"
        assert any(call.status == "skipped" for call in receipt.tool_calls)
    if BREAKER_ERROR in error:
        assert result.outcome == "failed"


def assert_repeats_bounded(receipt: Receipt, block_at: int) -> None:
    """On an unchanged workspace a read-only call returns the identical result each time, so
    the repeat guard lets one signature run in at most `block_at - 1` model turns."""
    turns: defaultdict[str, set[int]] = defaultdict(set)
    for call in receipt.tool_calls:
        # Only successful calls: a failed one may have had unparseable arguments, which the
        # log spells as `{}` whatever they were.
        if call.name in READ_ONLY_TOOLS and call.status == "ok":
            turns[call.name + call.arguments].add(call.iteration)
    for signature, seen in turns.items():
        assert len(seen) <= block_at - 1, f"{signature} ran in turns {sorted(seen)}"


def assert_verified_matches_disk(result: WireResult, context: RunContext) -> None:
    changed = changed_files(context.before, snapshot(context.workspace))
    if not landed_paths(result):
        assert result.verified is None, "verified without an accepted edit"
    elif changed:
        assert result.verified is add_works(context.workspace, context.module)
