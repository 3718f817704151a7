"""The acceptance scenario: a broken `add()` and its failing test, fixed through the editor.

A disposable workspace holds `calc.py` (add returns `a - b`) and `test_calc.py`. The editor
asks `rune.fixThis` on calc.py with "You are a coding agent. Fix bugs using your tools",
accepts the reviews exactly as its user would (VS Code: the preview's OK; Neovim: the `Accept
edit` code action on the pending-edit diagnostic) and saves. Then the fix must be on disk
(`add(2, 3) == 5` in a fresh interpreter) and the run `verified` by its `checkCommand`.

It runs always against a scripted model double, and live against a real Ollama when
`RUNE_LIVE_OLLAMA` names one (model `RUNE_LIVE_MODEL`, default qwen3:14b).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.doubles.model_double import Call, ModelDouble, Reply
from tests.e2e.editor import ApplyPolicy, FakeEditor, Kind
from tests.e2e.wire import WireResult
from tests.live.invariants import RunContext, assert_run_invariants
from tests.live.session import AutoReview, editor_session
from tests.live.workspace import (
    CALC_PY,
    CHECK_COMMAND,
    INSTRUCTION,
    add_works,
    make_calc_workspace,
    snapshot,
)

LIVE_OLLAMA = "RUNE_LIVE_OLLAMA"
LIVE_MODEL = "RUNE_LIVE_MODEL"
DEFAULT_LIVE_MODEL = "qwen3:14b"


def scripted_fix() -> tuple[Reply, ...]:
    """What a competent model does: read, edit, then say what it did."""
    return (
        Reply(tool_calls=(Call("read_file", {"path": "calc.py"}),)),
        Reply(
            text="add subtracts instead of adding.",
            tool_calls=(
                Call(
                    "edit_file",
                    {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"},
                ),
            ),
        ),
        Reply(text="Fixed add(): it returned a - b; it now returns a + b."),
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_calc_workspace(tmp_path / "ws")


@pytest.fixture
def double() -> Iterator[ModelDouble]:
    with ModelDouble() as running:
        yield running


async def fix_as_a_user(
    kind: Kind, workspace: Path, state_dir: Path, settings: dict[str, Any], within: float
) -> tuple[WireResult, RunContext]:
    context = RunContext(workspace, state_dir, snapshot(workspace), checked=True)
    async with editor_session(kind, workspace, state_dir, settings) as editor:
        # Either way the user keeps what the review shows and saves it.
        editor.default_apply = ApplyPolicy(accept=True, save=True)
        editor.open("calc.py")
        if kind == "neovim":
            async with AutoReview(editor, "Accept edit"):
                result = await _fix(editor, within)
        else:
            result = await _fix(editor, within)
    return result, context


async def _fix(editor: FakeEditor, within: float) -> WireResult:
    return await editor.start_fix("calc.py", instruction=INSTRUCTION).result(within=within)


def assert_fixed_and_verified(result: WireResult, context: RunContext) -> None:
    receipt = assert_run_invariants(result, context)
    assert result.outcome == "completed", result.error
    assert add_works(context.workspace)
    assert result.verified is True
    assert receipt.check is not None and receipt.check.exit_code == 0
    assert "passed" in result.answer


@pytest.mark.parametrize("kind", ["vscode", "neovim"])
async def test_broken_add_is_fixed_and_verified_with_a_scripted_model(
    double: ModelDouble, workspace: Path, tmp_path: Path, kind: Kind
) -> None:
    double.script(*scripted_fix())
    settings = {
        "provider": "ollama",
        "baseUrl": double.ollama_url,
        "model": "qwen3:14b",
        "requestTimeout": 10,
        "checkCommand": CHECK_COMMAND,
    }
    assert not add_works(workspace)

    result, context = await fix_as_a_user(kind, workspace, tmp_path / "state", settings, 30)

    assert_fixed_and_verified(result, context)
    assert result.statuses() == [("edit_file", "applied")]
    assert result.calls() == [("read_file", "ok"), ("edit_file", "ok")]
    assert (workspace / "calc.py").read_text(encoding="utf-8") == CALC_PY.replace("a - b", "a + b")
    # The check passes after the accepted edit: the run ends there, without a third turn.
    assert len(double.chat_requests) == 2


@pytest.mark.live
async def test_broken_add_is_fixed_and_verified_by_a_real_ollama(
    workspace: Path, tmp_path: Path
) -> None:
    base_url = os.environ.get(LIVE_OLLAMA)
    if not base_url:
        pytest.skip(f"no live Ollama: set {LIVE_OLLAMA} to its base URL")
    settings = {
        "provider": "ollama",
        "baseUrl": base_url,
        "model": os.environ.get(LIVE_MODEL) or DEFAULT_LIVE_MODEL,
        "requestTimeout": 600,
        "checkCommand": CHECK_COMMAND,
    }

    result, context = await fix_as_a_user("neovim", workspace, tmp_path / "state", settings, 3600)

    assert_fixed_and_verified(result, context)


#: What Qwen2.5-Coder-0.5B answered on a task like this one through llama-server with native
#: tools offered (recorded, sum_to_n_pasted_native): prose and the corrected function in a
#: fenced block, no tool call. Here for calc.py's add().
CODE_BLOCK_ONLY = (
    "To fix the test failure, we need to modify the `add` function to return the sum.\n\n"
    "Here's the proposed change:\n\n"
    "```python\n"
    "def add(a, b):\n"
    '    """Return the sum of a and b."""\n'
    "    return a + b\n"
    "```\n\n"
    "Explanation:\n- We use the `+` operator, so `add(2, 3)` returns `5`."
)


@pytest.mark.parametrize("kind", ["vscode", "neovim"])
async def test_broken_add_is_fixed_from_an_answer_that_is_only_a_code_block(
    double: ModelDouble, workspace: Path, tmp_path: Path, kind: Kind
) -> None:
    double.script(Reply(text=CODE_BLOCK_ONLY))
    settings = {
        "provider": "openai",
        "baseUrl": double.openai_url,
        "model": "qwen3:14b",
        "requestTimeout": 10,
        "checkCommand": CHECK_COMMAND,
    }

    result, context = await fix_as_a_user(kind, workspace, tmp_path / "state", settings, 30)

    assert_fixed_and_verified(result, context)  # reviewed, accepted, on disk, verified
    assert result.statuses() == [("edit_file", "applied")]
    assert result.calls() == [("edit_file", "ok")]
    assert (workspace / "calc.py").read_text(encoding="utf-8") == CALC_PY.replace("a - b", "a + b")
    # The check before the first turn failed, and with candidate fixes (`candidates`, default
    # 4) it verified the block in a scratch copy instead of joining the task (issue 26); its
    # pass after the edit ended the run.
    [request] = double.chat_requests
    assert "failed (exit 1)" not in request.body["messages"][1]["content"]
