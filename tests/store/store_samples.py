"""Realistic run data for the store tests: a run that read, edited and answered."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rune_lsp.loop.messages import Message, Usage
from rune_lsp.loop.records import (
    CallRecord,
    EditRecord,
    Outcome,
    RunResult,
    ToolCallSummary,
    TurnRecord,
)
from rune_lsp.loop.state import PreparedEdit, RunState
from rune_lsp.store.pending import PendingRun
from rune_lsp.store.receipt import CheckRecord, Receipt
from rune_lsp.store.receipt_builder import build_receipt

STARTED = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
ENDED = datetime(2025, 3, 1, 12, 0, 42, tzinfo=UTC)
API_KEY = "sk-test-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"

DIFF = """--- a/src/app.py
+++ b/src/app.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a - b
+    return a + b
"""


def run_state(run_id: str = "run-1") -> RunState:
    return RunState(
        run_id=run_id,
        iteration_budget=8,
        iterations_used=2,
        messages=[Message(role="user", content="fix add()")],
        call_log=[
            CallRecord(
                call_id="call-1",
                name="read_file",
                arguments='{"path":"src/app.py"}',
                status="ok",
                digest="def add(a, b):\n    return a - b\n",
                iteration=1,
                started_at=1_740_830_400.0,
                duration_ms=3.5,
            ),
            CallRecord(
                call_id="call-2",
                name="edit_file",
                arguments='{"path":"src/app.py","old_text":"a - b","new_text":"a + b"}',
                status="ok",
                digest="applied",
                iteration=1,
                started_at=1_740_830_401.0,
                duration_ms=1200.0,
            ),
        ],
        edits=[EditRecord(edit_id="edit-1", tool="edit_file", path="src/app.py", status="applied")],
        turns=[
            TurnRecord(iteration=1, usage=Usage(prompt_tokens=900, completion_tokens=60)),
            TurnRecord(
                iteration=2,
                usage=Usage(prompt_tokens=1000, completion_tokens=40, cached_tokens=880),
                finish_reason="stop",
            ),
        ],
        diffs={"edit-1": DIFF},
    )


def run_result(outcome: Outcome = "completed", run_id: str = "run-1") -> RunResult:
    return RunResult(
        run_id=run_id,
        outcome=outcome,
        answer="Fixed add(): it subtracted instead of adding.",
        error=None if outcome == "completed" else f"the run ended {outcome}",
        iterations_used=2,
        iteration_budget=8,
        edits=(
            EditRecord(edit_id="edit-1", tool="edit_file", path="src/app.py", status="applied"),
        ),
        tool_calls=(
            ToolCallSummary(name="read_file", status="ok"),
            ToolCallSummary(name="edit_file", status="ok"),
        ),
        verified=True if outcome == "completed" else None,
    )


CHECK = CheckRecord(
    command="python -m pytest -q",
    exit_code=0,
    stdout_tail="3 passed in 0.02s\n",
    duration_ms=850.0,
)


def receipt(outcome: Outcome = "completed", run_id: str = "run-1") -> Receipt:
    return build_receipt(
        run_result(outcome, run_id),
        secrets=[API_KEY],
        provider="openai",
        model="qwen3:14b",
        base_url="http://127.0.0.1:8080/v1",
        started_at=STARTED,
        ended_at=ENDED,
        state=run_state(run_id),
        check=CHECK if outcome == "completed" else None,
        document="file:///ws/src/app.py",
        task="Fix add() so the tests pass",
    )


def plain_receipt(state: RunState | None = None, **overrides: Any) -> Receipt:
    """build_receipt of run_result() with no secrets, placeholder provider details and no
    duration; `overrides` replace any of build_receipt's arguments, `result` included."""
    arguments: dict[str, Any] = {
        "result": run_result(),
        "secrets": [],
        "provider": "ollama",
        "model": "m",
        "base_url": "http://h",
        "started_at": STARTED,
        "ended_at": STARTED,
        "state": state,
    }
    return build_receipt(**(arguments | overrides))


def pending_run(run_id: str = "run-1", session_id: str = "session-a") -> PendingRun:
    state = run_state(run_id)
    state.turn.pending.append(
        PreparedEdit(
            edit_id="edit-2",
            call_id="call-3",
            tool="edit_file",
            path="/ws/src/app.py",
            old_text="a + b",
            new_text="b + a",
        )
    )
    return PendingRun(
        run_id=run_id,
        state=state,
        document_uri="file:///ws/src/app.py",
        document_path="/ws/src/app.py",
        provider="ollama",
        model="qwen3:14b",
        base_url="http://127.0.0.1:11434",
        session_id=session_id,
        task="Fix add()",
    )
