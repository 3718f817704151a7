"""Progress messages (`step N/M · ...`) and a run's progress token."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from lsprotocol import types

from rune_lsp.loop.events import (
    CheckStarted,
    ModelDelta,
    ModelTurnStarted,
    PendingApproval,
    RunEnded,
    TargetMoved,
    ToolRequested,
    ToolResulted,
)
from rune_lsp.loop.messages import ToolCall
from rune_lsp.loop.records import RunResult
from rune_lsp.loop.state import PreparedCommand, PreparedEdit, ToolOutcome
from rune_lsp.server.progress import RunProgress, progress_message

STEP = {"run_id": "r1", "iterations_used": 3, "iteration_budget": 8}
EDIT = PreparedEdit(
    edit_id="e1", call_id="c1", tool="edit_file", path="/ws/src/app.py", old_text="a", new_text="b"
)
COMMAND = PreparedCommand(edit_id="e2", call_id="c2", command="pytest -q", cwd="/ws")
CALL = ToolCall(id="c1", name="read_file", arguments={"path": "src/app.py"})


@pytest.mark.parametrize(
    ("event", "message"),
    [
        (ModelTurnStarted(**STEP), "step 3/8 · asking the model"),
        (ToolRequested(**STEP, call=CALL), "step 3/8 · read_file src/app.py"),
        (
            PendingApproval(**STEP, pending=(EDIT, COMMAND)),
            "step 3/8 · waiting for review: edit_file app.py, run_command pytest -q",
        ),
        (
            RunEnded(**STEP, result=RunResult(run_id="r1", outcome="failed", iteration_budget=8)),
            "step 3/8 · failed",
        ),
        (
            RunEnded(
                **STEP, result=RunResult(run_id="r1", outcome="completed", iteration_budget=8)
            ),
            "step 3/8 · completed · no change proposed",
        ),
        (CheckStarted(**STEP, command="pytest -q"), "step 3/8 · running the check: pytest -q"),
        (
            CheckStarted(**STEP, command="pytest -q", candidate=2),
            "step 3/8 · running the check on candidate fix 2 (scratch copy): pytest -q",
        ),
        (
            TargetMoved(**STEP, path="pkg/core.py"),
            "step 3/8 · the failing test points to pkg/core.py: the fix goes there",
        ),
    ],
)
def test_each_report_starts_with_the_step(event: Any, message: str) -> None:
    assert progress_message(event) == message


def test_streamed_text_and_results_do_not_change_the_message() -> None:
    assert progress_message(ModelDelta(**STEP, text="hel")) is None
    outcome = ToolOutcome(status="ok", content="...")
    assert progress_message(ToolResulted(**STEP, call=CALL, outcome=outcome)) is None


@dataclass
class FakeProgress:
    sent: list[tuple[str, object]] = field(default_factory=list)
    tokens: dict[object, object] = field(default_factory=dict)
    refuse: bool = False

    async def create_async(self, token: object) -> None:
        if self.refuse:
            raise RuntimeError("no")
        self.tokens[token] = object()

    def begin(self, token: object, value: types.WorkDoneProgressBegin) -> None:
        self.sent.append(("begin", value.message))

    def report(self, token: object, value: types.WorkDoneProgressReport) -> None:
        self.sent.append(("report", value.message))

    def end(self, token: object, value: types.WorkDoneProgressEnd) -> None:
        self.sent.append(("end", value.message))


@dataclass
class FakeProtocol:
    notified: list[tuple[str, object]] = field(default_factory=list)

    def notify(self, method: str, params: object) -> None:
        self.notified.append((method, params))


@dataclass
class FakeServer:
    work_done_progress: FakeProgress = field(default_factory=FakeProgress)
    progress_support: bool = True
    client_streams_text: bool = False
    protocol: FakeProtocol = field(default_factory=FakeProtocol)


async def test_steps_reported_before_the_token_exists_follow_the_begin() -> None:
    server = FakeServer()
    progress = RunProgress(server, "rune/r1", "Rune: app.py")  # type: ignore[arg-type]

    progress.report(ModelTurnStarted(**STEP))
    progress.report(ToolRequested(**STEP, call=CALL))
    await progress.begin()
    progress.report(ModelDelta(**STEP, text="x"))
    progress.report(PendingApproval(**STEP, pending=(EDIT,)))
    progress.end("completed: done")

    assert server.work_done_progress.sent == [
        ("begin", "starting"),
        ("report", "step 3/8 · asking the model"),
        ("report", "step 3/8 · read_file src/app.py"),
        ("report", "step 3/8 · waiting for review: edit_file app.py"),
        ("end", "completed: done"),
    ]
    assert server.work_done_progress.tokens == {}  # a cancel of it now finds nothing


@pytest.mark.parametrize("streams", [True, False])
async def test_the_models_words_stream_to_a_client_that_shows_them(streams: bool) -> None:
    server = FakeServer(client_streams_text=streams)
    progress = RunProgress(server, "rune/r1", "Rune: app.py")  # type: ignore[arg-type]

    await progress.begin()
    for piece in ("Here is ", "", "the fix:"):
        progress.report(ModelDelta(**STEP, text=piece))
    progress.report(ModelDelta(**{**STEP, "iterations_used": 4}, text="Asked again:"))

    expected = [
        ("rune/modelText", {"token": "rune/r1", "text": t, "step": step})
        for t, step in (
            ("Here is ", "step 3/8"),
            ("the fix:", "step 3/8"),
            ("Asked again:", "step 4/8"),  # the next model turn's answer names its own step
        )
    ]
    assert server.protocol.notified == (expected if streams else [])
    assert server.work_done_progress.sent == [("begin", "starting")]  # the step stays the message


@pytest.mark.parametrize(
    "server", [FakeServer(progress_support=False), FakeServer(FakeProgress(refuse=True))]
)
async def test_without_a_token_nothing_is_sent(server: FakeServer) -> None:
    progress = RunProgress(server, "rune/r1", "Rune: app.py")  # type: ignore[arg-type]

    await progress.begin()
    progress.report(ModelTurnStarted(**STEP))
    progress.end("completed: done")

    assert server.work_done_progress.sent == []
