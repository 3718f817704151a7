"""Reading what a finished run left in the server's `stateDir` (docs/interface.md#settings)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.wire import WireResult


def stored_receipt(state_dir: Path, result: WireResult) -> dict[str, Any]:
    """The receipt of `result`: `receipts/<runId>.json` under `state_dir`, parsed, checked to
    be the file the result names and to hold that same result."""
    path = state_dir / "receipts" / f"{result.run_id}.json"
    assert path.is_file(), f"no receipt at {path}"
    assert result.receipt is not None and Path(result.receipt) == path
    receipt: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    stored = WireResult.model_validate(receipt["result"])
    assert (stored.run_id, stored.outcome, stored.edits) == (
        result.run_id,
        result.outcome,
        result.edits,
    )
    return receipt


def pending_runs(state_dir: Path) -> list[str]:
    """Run ids persisted for `rune.resume` (`pending/<runId>.json`)."""
    directory = state_dir / "pending"
    return sorted(p.stem for p in directory.glob("*.json")) if directory.is_dir() else []


def edit_id_of(arguments: object) -> str:
    """The `editId` of a review command's arguments (`[{editId}]`)."""
    assert isinstance(arguments, list | tuple) and arguments, arguments
    first = arguments[0]
    assert isinstance(first, dict) and isinstance(first.get("editId"), str), first
    edit_id: str = first["editId"]
    return edit_id
