"""The status types and every mapping between them (loop/statuses.py)."""

from __future__ import annotations

from typing import get_args

import pytest

from rune_lsp.loop.decisions import final_record, landed_outcome, pending_record
from rune_lsp.loop.records import EditRecord
from rune_lsp.loop.state import Landed, PreparedEdit, ToolOutcome
from rune_lsp.loop.statuses import (
    EDIT_STATUSES,
    LANDED,
    REFUSED_AT_RECHECK,
    CallStatus,
    EditStatus,
    LandedStatus,
    ReconcileStatus,
    counts_for_breaker,
    recheck_verdict,
    recorded,
    recorded_verdict,
    reported,
    told_to_user,
)

CHANGE = PreparedEdit(
    edit_id="e1", call_id="c1", tool="edit_file", path="/w/a.py", old_text="a", new_text="b"
)


def test_every_reconciled_status_is_a_verdict_and_an_edit_status() -> None:
    verdicts = set(get_args(LandedStatus))
    assert verdicts == {*get_args(ReconcileStatus), "denied"}
    assert set(get_args(ReconcileStatus)) <= set(get_args(EditStatus))
    assert EDIT_STATUSES == ("applied", "partial", "rejected", "stale", "pending")


@pytest.mark.parametrize(
    ("verdict", "call", "record"),
    [
        ("applied", CallStatus("ok", "applied"), "applied"),
        ("partial", CallStatus("ok", "partial"), "partial"),
        ("rejected", CallStatus("denied", "rejected"), "rejected"),
        ("denied", CallStatus("denied", None), "rejected"),
        ("stale", CallStatus("failed", "stale"), "stale"),
    ],
)
def test_a_verdict_travels_to_the_model_and_the_run_result(
    verdict: LandedStatus, call: CallStatus, record: EditStatus
) -> None:
    assert reported(verdict) == call
    assert recorded_verdict(verdict) == record
    # The loop's own path gives the same record as the driver's at a cancel.
    outcome = landed_outcome(CHANGE, Landed(status=verdict, detail="why"))
    assert outcome.call_status == call
    assert final_record(CHANGE, outcome).status == record


def test_a_result_without_an_edit_status_is_applied_only_when_ok() -> None:
    assert recorded(CallStatus("ok")) == "applied"
    assert recorded(CallStatus("ok", "pending")) == "applied"
    assert recorded(CallStatus("failed")) == "rejected"
    assert recorded(CallStatus("denied")) == "rejected"
    assert recorded(CallStatus("skipped")) == "rejected"


def test_a_refusal_at_dispatch_is_denied_and_recorded_not_applied() -> None:
    assert CallStatus("denied", "rejected") == REFUSED_AT_RECHECK
    assert recheck_verdict(REFUSED_AT_RECHECK) == "denied"
    assert recheck_verdict(CallStatus("failed", "stale")) == "stale"
    assert recheck_verdict(CallStatus("failed")) == "denied"  # an error while re-checking


def test_the_user_is_told_of_rule_refusals_only() -> None:
    assert told_to_user(reported("denied"))
    assert not told_to_user(reported("rejected"))  # the user's own no
    assert not told_to_user(REFUSED_AT_RECHECK)
    assert not told_to_user(CallStatus("failed"))


def test_the_breaker_counts_failures_not_rejections_or_skips() -> None:
    assert counts_for_breaker(CallStatus("failed")) is True
    assert counts_for_breaker(reported("denied")) is True
    assert counts_for_breaker(reported("stale")) is True
    assert counts_for_breaker(reported("rejected")) is None
    assert counts_for_breaker(CallStatus("skipped")) is None
    assert counts_for_breaker(reported("applied")) is False


def test_a_pending_record_and_a_tool_outcome_keep_their_types() -> None:
    assert pending_record(CHANGE) == EditRecord(
        edit_id="e1", tool="edit_file", path="/w/a.py", status="pending"
    )
    outcome = ToolOutcome(status="denied", content="no", edit_status="rejected")
    assert outcome.is_failure and outcome.call_status == REFUSED_AT_RECHECK


def test_applied_and_partial_edits_are_the_ones_that_landed() -> None:
    assert {s for s in EDIT_STATUSES if s in LANDED} == {"applied", "partial"}
