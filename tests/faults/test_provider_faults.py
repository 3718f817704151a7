"""Provider faults in the middle of a run, after the user already accepted an edit.

Whatever the model server does (refuses, resets, errors, drips, talks garbage, calls tools that
do not exist or with arguments that are not JSON), the run ends with a typed outcome, the file
on disk only ever holds what the user accepted, and the receipt is written and records the
accepted edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest

from tests.doubles.model_double import (
    Call,
    CutStream,
    FailMidStream,
    HttpError,
    InvalidJson,
    ModelDouble,
    RateLimited,
    Reply,
    Scripted,
)
from tests.e2e.conftest import APP_PY, Launch
from tests.e2e.editor import ApplyPolicy
from tests.e2e.scenario import disk, edit
from tests.e2e.wire import Outcome
from tests.faults.receipts import stored_receipt

FIXED = APP_PY.replace("a - b", "a + b")
FINAL = Reply(text="Done after the fault.")


@dataclass(frozen=True)
class Fault:
    """What the model server does once the first edit is reviewed, and how the run must end."""

    name: str
    after_review: tuple[Scripted, ...]
    outcome: Outcome
    refuse: bool = False  # stop listening before the next model call
    error_mentions: str | None = None


FAULTS = [
    Fault("connection refused", (), "failed", refuse=True, error_mentions="connection refused"),
    Fault("reset mid-stream", (CutStream(after_chunks=2),), "failed"),
    Fault("http 500", (HttpError(500, "boom inside"),), "failed", error_mentions="500"),
    Fault("http 429", (RateLimited(retry_after=3),), "failed", error_mentions="429"),
    Fault("invalid json", (InvalidJson(),), "failed"),
    Fault("error mid-stream", (FailMidStream(),), "failed", error_mentions="unexpectedly"),
    Fault(
        "slow drip",
        (Reply(text="a slow but complete final answer", chunk_delay=0.03),),
        "completed",
    ),
    Fault(
        "unknown tool and arguments not json",
        (Reply(tool_calls=(Call("frobnicate", {"x": 1}), Call("read_file", '{"path": '))), FINAL),
        "completed",
    ),
]


#: Every fault after an accept; a rejection (nothing may land) under one of them.
CASES = [(fault, "Accept edit") for fault in FAULTS] + [
    (fault, "Reject edit") for fault in FAULTS if fault.name == "http 500"
]


@pytest.mark.parametrize(
    ("fault", "verdict"), CASES, ids=[f"{f.name}, {v.split()[0].lower()}" for f, v in CASES]
)
async def test_a_fault_after_review_ends_the_run_typed_with_a_receipt(
    launch: Launch,
    double: ModelDouble,
    workspace: Path,
    fault: Fault,
    verdict: Literal["Accept edit", "Reject edit"],
) -> None:
    double.script(edit("app.py", "return a - b", "return a + b"), *fault.after_review)
    editor = await launch("neovim")
    editor.default_apply = ApplyPolicy(save=True)  # an accepted edit reaches the disk at once
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    diagnostic = await editor.pending_review(uri)
    assert disk(workspace / "app.py") == APP_PY  # nothing lands before the review
    if fault.refuse:
        double.refuse_connections()
    answer = await editor.review(uri, diagnostic, verdict)
    result = await fix.result()

    accepted = verdict == "Accept edit"
    assert answer == {"status": "applied" if accepted else "rejected"}
    assert result.outcome == fault.outcome, result.error
    if fault.error_mentions is not None:
        assert result.error is not None and fault.error_mentions in result.error
    assert result.statuses()[0] == ("edit_file", "applied" if accepted else "rejected")
    assert disk(workspace / "app.py") == (FIXED if accepted else APP_PY)
    assert editor.rune_diagnostics(uri) == []
    receipt = stored_receipt(editor.state_dir, result)
    [stored_edit, *_] = receipt["edits"]
    assert stored_edit["status"] == result.edits[0].status
    if accepted:
        assert "+    return a + b" in stored_edit["diff"]


async def test_bad_calls_get_failed_results_and_change_nothing(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    unknown = Call("frobnicate", {"x": 1})
    not_json = Call("edit_file", "{not json at all")
    double.script(Reply(tool_calls=(unknown, not_json)), Reply(text="I could not do it."))
    editor = await launch("vscode")
    editor.open("app.py")

    result = await editor.fix("app.py")

    assert result.outcome == "completed"
    assert result.calls() == [("frobnicate", "failed"), ("edit_file", "failed")]
    assert result.edits == ()
    assert editor.apply_records == []
    assert editor.text("app.py") == APP_PY and disk(workspace / "app.py") == APP_PY
    # Each call got its own paired result, saying what was wrong.
    results = [m for m in double.chat_requests[-1].body["messages"] if m["role"] == "tool"]
    assert len(results) == 2 and all(m["content"] for m in results)
    assert "frobnicate" in results[0]["content"]
    stored_receipt(editor.state_dir, result)
