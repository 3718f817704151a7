"""What a driven run's records need to know about it besides its state (`RunMeta`), and the
two records built from it: the paused review kept for `rune.resume` (store/pending.py) and the
receipt (store/receipt_builder.py). `runner/driver.py` writes them when the run pauses and when
it ends.
"""

from __future__ import annotations

from dataclasses import dataclass

from rune_lsp.loop.records import RunResult
from rune_lsp.loop.state import RunState
from rune_lsp.store.pending import PendingRun
from rune_lsp.store.receipt import CheckRecord, Receipt
from rune_lsp.store.receipt_builder import build_receipt


@dataclass(frozen=True)
class RunMeta:
    """What the receipt and the pending record need to know about a run besides its state."""

    provider: str
    model: str
    base_url: str
    task: str
    document_uri: str  # the document the run was started on
    document_path: str | None = None
    secrets: tuple[str, ...] = ()
    session_id: str = ""
    # Edit paths in the result are shown relative to this folder (docs/interface.md#run-result).
    workspace_root: str | None = None


def pending_run(meta: RunMeta, state: RunState) -> PendingRun:
    """The paused run as the pending store keeps it."""
    return PendingRun(
        run_id=state.run_id,
        state=state,
        document_uri=meta.document_uri,
        document_path=meta.document_path,
        task=meta.task,
        provider=meta.provider,
        model=meta.model,
        base_url=meta.base_url,
        session_id=meta.session_id,
    )


def receipt_of(
    meta: RunMeta,
    result: RunResult,
    state: RunState | None,
    check: CheckRecord | None,
    *,
    started_at: float,
    ended_at: float,
) -> Receipt:
    """The run's receipt; `state` is None when the run never got going."""
    return build_receipt(
        result=result,
        state=state,
        provider=meta.provider,
        model=meta.model,
        base_url=meta.base_url,
        started_at=started_at,
        ended_at=ended_at,
        check=check,
        document=meta.document_path or meta.document_uri,
        task=meta.task,
        secrets=meta.secrets,
    )
