"""A whole `rune.fixThis` over stdio against a real model on a real llama-server.

Each scenario (native `tool_calls` through the tool template; the text protocol with native
tools turned off) runs once with every edit accepted (Neovim-like editor, review mode B, each
pending-edit diagnostic accepted through its code action and saved) and once with every edit
refused (VS Code-like editor, mode A, the preview answered `applied: false`). The tiny model
says whatever it says (several calls at once, the same call over and over, answers cut at the
token limit); the guarantees of `tests.live.invariants` must hold regardless."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.editor import ApplyPolicy
from tests.live.invariants import RunContext, assert_repeats_bounded, assert_run_invariants
from tests.live.llama import MODEL_ALIAS, LlamaOptions, LlamaServer, StartLlama
from tests.live.runs import (
    REPEAT_BLOCK_AT,
    Protocol,
    assert_model_answered,
    fix_calc,
    live_settings,
    report,
)
from tests.live.session import AutoReview, editor_session
from tests.live.workspace import INSTRUCTION, make_calc_workspace, snapshot

pytestmark = pytest.mark.live


@dataclass(frozen=True)
class Scenario:
    protocol: Protocol
    seed: int  # the server's sampling seed: the same request gets the same answer
    instruction: str


# Seeds and words picked (with today's prompts) so the model's first answer is worth having:
# natively, three calls at once, edits among them, so reviews happen; in the text protocol it
# only talks. A change to rune's prompts may change what the model says, never what is asserted.
SCENARIOS = {
    "native": Scenario(
        "native",
        9,
        "Use your tools: call read_file on calc.py, then edit_file to fix add. "
        "Answer with the JSON block only.",
    ),
    "text": Scenario("text", 1, INSTRUCTION),
}


@pytest.fixture(scope="module", params=sorted(SCENARIOS))
def scenario(
    request: pytest.FixtureRequest, start_llama: StartLlama
) -> tuple[Scenario, LlamaServer]:
    """The scenario and a server sampling with its seed (one per scenario, for the module)."""
    chosen = SCENARIOS[request.param]
    return chosen, start_llama(LlamaOptions(seed=chosen.seed))


async def test_accepting_every_edit_keeps_the_guarantees(
    scenario: tuple[Scenario, LlamaServer], tmp_path: Path
) -> None:
    chosen, llama = scenario
    workspace = make_calc_workspace(tmp_path / "ws")
    state_dir = tmp_path / "state"
    context = RunContext(workspace, state_dir, snapshot(workspace), REPEAT_BLOCK_AT, checked=True)
    settings = live_settings(llama, chosen.protocol)

    async with editor_session("neovim", workspace, state_dir, settings) as editor:
        editor.default_apply = ApplyPolicy(accept=True, save=True)
        async with AutoReview(editor, "Accept edit") as review:
            result = await fix_calc(editor, chosen.instruction)

    receipt = assert_run_invariants(result, context)
    report(result, receipt)
    assert_model_answered(receipt)
    # Every file edit the user was shown was decided by the user; none was left hanging.
    file_edits = {e.edit_id for e in result.edits if e.tool != "run_command"}
    assert file_edits <= set(review.decided)
    assert all(e.status != "pending" for e in result.edits)
    assert receipt.provider == "openai" and receipt.model == MODEL_ALIAS


async def test_refusing_every_edit_changes_nothing(
    scenario: tuple[Scenario, LlamaServer], tmp_path: Path
) -> None:
    chosen, llama = scenario
    workspace = make_calc_workspace(tmp_path / "ws")
    state_dir = tmp_path / "state"
    before = snapshot(workspace)
    context = RunContext(workspace, state_dir, before, REPEAT_BLOCK_AT, checked=True)
    settings = live_settings(llama, chosen.protocol)

    async with editor_session("vscode", workspace, state_dir, settings) as editor:
        editor.default_apply = ApplyPolicy(accept=False)
        result = await fix_calc(editor, chosen.instruction)

    receipt = assert_run_invariants(result, context)
    report(result, receipt)
    assert_model_answered(receipt)
    assert snapshot(workspace) == before
    assert all(e.status not in ("applied", "partial") for e in result.edits)
    assert result.verified is None
    # Nothing changed, so every read-only call had one answer: the repeat guard must have
    # stopped any model that asked the same thing over and over.
    assert_repeats_bounded(receipt, REPEAT_BLOCK_AT)
