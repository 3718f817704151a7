"""The seeds' acceptance scenario on a real coding model: Qwen2.5-Coder-Instruct (1.5B in CI,
`RUNE_LIVE_CODER=qwen-0.5b` for the smaller one) on llama-server, through the language server.

`app.py` holds `add` returning `a - b`; the user asks "add(2, 3) returns -1 instead of 5. Fix
the bug." from a VS Code-like editor and accepts every edit. The run must end with the fix on
disk and `verified` by its `checkCommand`: that is what a user of a small local model expects.
The same model must also keep the guarantees whatever it answers (a typed end within the
budget, every call paired, nothing written that the user did not accept), natively and with the
text protocol. Sampling is fixed (server seed and temperature), so a failure repeats.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.editor import ApplyPolicy
from tests.e2e.wire import WireResult
from tests.live.invariants import RunContext, assert_run_invariants
from tests.live.llama import LlamaOptions, LlamaServer, StartLlama
from tests.live.runs import RUN_WITHIN, Protocol, assert_model_answered, live_settings, report
from tests.live.session import editor_session
from tests.live.workspace import (
    APP_INSTRUCTION,
    add_works,
    check_command,
    make_app_workspace,
    snapshot,
)

pytestmark = pytest.mark.live

#: Fixed sampling: the server's seed and its default temperature (low, as for code edits).
SEED = 1
TEMPERATURE = 0.2
#: One answer's cap at the server: a model that falls into repetition ends in seconds, not
#: after the 8,000 tokens it would otherwise stream.
MAX_PREDICT = 1024


@pytest.fixture(scope="module")
def coder(start_coder: StartLlama) -> LlamaServer:
    return start_coder(
        LlamaOptions(
            tools_template=False, max_predict=MAX_PREDICT, seed=SEED, temperature=TEMPERATURE
        )
    )


async def fix_app(
    llama: LlamaServer, tmp_path: Path, protocol: Protocol, *, accept: bool
) -> tuple[WireResult, RunContext]:
    workspace = make_app_workspace(tmp_path / "ws")
    context = RunContext(
        workspace, tmp_path / "state", snapshot(workspace), checked=True, module="app"
    )
    settings = live_settings(llama, protocol, check_command("app"))
    async with editor_session("vscode", workspace, context.state_dir, settings) as editor:
        editor.default_apply = ApplyPolicy(accept=accept, save=True)
        editor.open("app.py")
        run = editor.start_fix("app.py", instruction=APP_INSTRUCTION)
        result = await run.result(within=RUN_WITHIN)
    return result, context


async def test_a_real_coding_model_fixes_add_through_the_language_server(
    coder: LlamaServer, tmp_path: Path
) -> None:
    result, context = await fix_app(coder, tmp_path, "native", accept=True)

    receipt = assert_run_invariants(result, context)
    report(result, receipt, answer=True)
    assert_model_answered(receipt)
    assert result.statuses(), f"no edit proposed; the model answered:\n{result.answer}"
    assert all(status == "applied" for _, status in result.statuses()), result.statuses()
    assert add_works(context.workspace, "app")
    assert result.verified is True
    assert receipt.check is not None and receipt.check.exit_code == 0


@pytest.mark.parametrize("protocol", ["native", "text"])
async def test_refusing_every_edit_of_a_real_model_changes_nothing(
    coder: LlamaServer, tmp_path: Path, protocol: Protocol
) -> None:
    result, context = await fix_app(coder, tmp_path, protocol, accept=False)

    receipt = assert_run_invariants(result, context)
    report(result, receipt, answer=True)
    assert_model_answered(receipt)
    assert snapshot(context.workspace) == context.before
    assert all(status not in ("applied", "partial") for _, status in result.statuses())
    assert result.verified is None
