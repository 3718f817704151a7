"""A real model made to loop, and the guards that stop it.

The server is started with a grammar that lets the model write only one thing: the same
fenced JSON tool call, every turn. With native tools off (the text protocol sends no `tools`,
so the grammar applies) the run sees a model repeating itself through the real server, the real
SSE stream and the real text-protocol parser, and the guards must end it early with their own
typed stop instead of spending the budget.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.wire import WireResult
from tests.live.invariants import RunContext, assert_run_invariants
from tests.live.llama import LlamaOptions, LlamaServer, StartLlama, forced_call
from tests.live.runs import REPEAT_BLOCK_AT, fix_calc, live_settings, report
from tests.live.session import editor_session
from tests.live.workspace import make_calc_workspace, snapshot

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def rereading(start_llama: StartLlama) -> LlamaServer:
    """Reads calc.py, again and again: the same call, the same result."""
    return start_llama(LlamaOptions(grammar=forced_call("read_file", {"path": "calc.py"})))


@pytest.fixture(scope="module")
def failing(start_llama: StartLlama) -> LlamaServer:
    """Reads a file that does not exist, again and again: the same call failing."""
    return start_llama(LlamaOptions(grammar=forced_call("read_file", {"path": "missing.py"})))


async def run_text_protocol(llama: LlamaServer, tmp_path: Path) -> tuple[RunContext, WireResult]:
    workspace = make_calc_workspace(tmp_path / "ws")
    context = RunContext(workspace, tmp_path / "state", snapshot(workspace), REPEAT_BLOCK_AT)
    settings = live_settings(llama, "text")
    async with editor_session("vscode", workspace, context.state_dir, settings) as editor:
        result = await fix_calc(editor)
    return context, result


async def test_the_repeat_guard_stops_a_model_rereading_the_same_file(
    rereading: LlamaServer, tmp_path: Path
) -> None:
    context, result = await run_text_protocol(rereading, tmp_path)

    receipt = assert_run_invariants(result, context)
    report(result, receipt)
    assert result.outcome == "incomplete"
    blocked = f"blocked after {REPEAT_BLOCK_AT} identical calls"
    assert result.error == f"repeat guard: read_file {blocked}"
    assert result.calls() == [("read_file", "ok"), ("read_file", "ok"), ("read_file", "skipped")]
    assert result.iterations_used < result.iteration_budget


async def test_the_breaker_stops_a_model_repeating_a_failing_call(
    failing: LlamaServer, tmp_path: Path
) -> None:
    context, result = await run_text_protocol(failing, tmp_path)

    receipt = assert_run_invariants(result, context)
    report(result, receipt)
    assert result.outcome == "failed"
    assert result.error == "tool read_file failed 2 consecutive times with identical arguments"
    assert result.calls() == [("read_file", "failed"), ("read_file", "failed")]
    # Step 1 is the code-first turn (answers/table.py): no tools are offered, so the forced call
    # is no block and the model is asked once more; steps 2 and 3 are the two failing reads.
    assert result.iterations_used == 3
