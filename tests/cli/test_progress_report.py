"""Progress lines during a run, and how the finished run is printed."""

from __future__ import annotations

import io
import json

from rune_lsp.cli.progress import ProgressPrinter, describe_event
from rune_lsp.cli.report import render_result, result_json
from rune_lsp.loop.events import (
    ModelDelta,
    ModelTurnStarted,
    PendingApproval,
    TargetMoved,
    ToolRequested,
    ToolResulted,
)
from rune_lsp.loop.messages import ToolCall
from rune_lsp.loop.records import EditRecord, RunResult, ToolCallSummary
from rune_lsp.loop.state import PreparedEdit, ToolOutcome

STEP = {"run_id": "r", "iterations_used": 3, "iteration_budget": 8}
READ = ToolCall(id="c1", name="read_file", arguments={"path": "src/app.py"})


def test_progress_lines_start_with_the_step() -> None:
    edit = PreparedEdit(
        edit_id="e", call_id="c", tool="edit_file", path="/ws/a.py", old_text="", new_text="x"
    )
    assert describe_event(ModelTurnStarted(**STEP)) == "step 3/8 · asking the model"
    assert describe_event(ToolRequested(**STEP, call=READ)) == "step 3/8 · read_file src/app.py"
    assert describe_event(PendingApproval(**STEP, pending=(edit,))) == (
        "step 3/8 · 1 change to review"
    )
    assert describe_event(PendingApproval(**STEP, pending=(edit, edit))) == (
        "step 3/8 · 2 changes to review"
    )
    # Worded as the editor's progress words it (loop/events.py `step_line`).
    assert describe_event(TargetMoved(**STEP, path="pkg/core.py")) == (
        "step 3/8 · the failing test points to pkg/core.py: the fix goes there"
    )


def test_only_surprising_results_are_shown() -> None:
    ok = ToolOutcome(status="ok", content="text")
    denied = ToolOutcome(status="denied", content="Access denied")
    applied = ToolOutcome(status="ok", content="done", edit_status="applied")
    assert describe_event(ToolResulted(**STEP, call=READ, outcome=ok)) is None
    assert describe_event(ToolResulted(**STEP, call=READ, outcome=denied)) == (
        "step 3/8 · read_file src/app.py: denied"
    )
    assert describe_event(ToolResulted(**STEP, call=READ, outcome=applied)) == (
        "step 3/8 · read_file src/app.py: applied"
    )
    assert describe_event(ModelDelta(**STEP, text="tok")) is None


def test_printer_writes_lines() -> None:
    out = io.StringIO()
    printer = ProgressPrinter(out)
    printer(ModelTurnStarted(**STEP))
    printer(ModelDelta(**STEP, text="tok"))
    assert out.getvalue() == "step 3/8 · asking the model\n"


RESULT = RunResult(
    run_id="abc",
    outcome="failed",
    answer="Partly done.\n",
    error="tool edit_file failed 2 consecutive times with identical arguments",
    iterations_used=4,
    iteration_budget=8,
    edits=(
        EditRecord(edit_id="e1", tool="edit_file", path="src/a.py", status="applied"),
        EditRecord(edit_id="e2", tool="write_file", path="/elsewhere/b.py", status="rejected"),
        EditRecord(edit_id="e3", tool="run_command", path="pytest -q /ws/t", status="rejected"),
    ),
    tool_calls=(ToolCallSummary(name="edit_file", status="ok"),),
    verified=False,
    receipt="/state/receipts/abc.json",
)


def test_render_result() -> None:
    assert render_result(RESULT) == (
        "Partly done.\n"
        "\n"
        "outcome: failed (step 4/8): tool edit_file failed 2 consecutive times with identical "
        "arguments\n"
        "  applied  edit_file src/a.py\n"
        "  rejected write_file /elsewhere/b.py\n"
        "  rejected run_command pytest -q /ws/t\n"
        "verified: no\n"
        "receipt: /state/receipts/abc.json\n"
        "run: abc\n"
    )


def test_a_completed_run_without_an_edit_says_no_change_was_proposed() -> None:
    answered = RunResult(
        run_id="r", outcome="completed", answer="Use a + b.", iterations_used=1, iteration_budget=8
    )
    assert render_result(answered) == (
        "Use a + b.\n\noutcome: completed · no change proposed (step 1/8)\n"
    )


def test_render_result_without_answer_or_check() -> None:
    bare = RunResult(run_id="r", outcome="cancelled", iteration_budget=8)
    assert render_result(bare) == "outcome: cancelled (step 0/8)\n"


def test_result_json_is_camel_case() -> None:
    data = json.loads(result_json(RESULT))
    assert data["runId"] == "abc"
    assert data["iterationsUsed"] == 4
    assert data["toolCalls"] == [{"name": "edit_file", "status": "ok"}]
    assert data["edits"][0]["editId"] == "e1"
    assert data["verified"] is False
