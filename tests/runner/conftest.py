"""A driver over the real tools in a temp workspace, with a scripted model and reviewer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rune_lsp.loop.runtime import AgentLoop, LoopConfig
from rune_lsp.loop.state import Approve, Decision, PreparedChange, Reject, RunState
from rune_lsp.runner.driver import RunDriver, StopReason
from rune_lsp.runner.run_meta import RunMeta
from rune_lsp.runner.verify import ShellVerifier
from rune_lsp.store.pending import PendingStore
from rune_lsp.store.receipts import ReceiptStore
from rune_lsp.tools.documents import DiskDocuments
from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.sandbox import Sandbox
from tests.loop.fakes import ScriptedModel

Policy = Callable[[PreparedChange], Decision]


@dataclass
class RecordingReviewer:
    policy: Policy = field(default=lambda change: Approve())
    seen: list[PreparedChange] = field(default_factory=list)
    withdrawn: bool = False

    async def decide(self, change: PreparedChange, state: RunState) -> Decision:
        self.seen.append(change)
        return self.policy(change)

    async def withdraw(self) -> None:
        self.withdrawn = True


@dataclass
class Rig:
    root: Path
    state_dir: Path

    def driver(
        self,
        model: ScriptedModel,
        reviewer: RecordingReviewer | None = None,
        *,
        check: str | None = None,
        check_timeout: float = 30,
        secrets: tuple[str, ...] = (),
        cancel_means: StopReason = "cancel",
    ) -> RunDriver:
        tools = WorkspaceTools(self.root, Sandbox.for_workspace([self.root]), DiskDocuments())
        loop = AgentLoop(model, tools, LoopConfig(max_iterations=6, first_turn="tools"))
        verifier = ShellVerifier(check, cwd=self.root, timeout=check_timeout) if check else None
        return RunDriver(
            loop=loop,
            reviewer=reviewer or RecordingReviewer(),
            meta=RunMeta(
                provider="ollama",
                model="scripted",
                base_url="http://127.0.0.1:1",
                task="Fix the bug.",
                document_uri=(self.root / "calc.py").as_uri(),
                document_path=str(self.root / "calc.py"),
                secrets=secrets,
                session_id="session-1",
            ),
            pending_store=self.pending,
            receipt_store=self.receipts,
            verifier=verifier,
            cancel_means=cancel_means,
        )

    @property
    def pending(self) -> PendingStore:
        return PendingStore(self.state_dir)

    @property
    def receipts(self) -> ReceiptStore:
        return ReceiptStore(self.state_dir)


@pytest.fixture
def rig(tmp_path: Path) -> Rig:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n", encoding="utf-8")
    return Rig(root=root, state_dir=tmp_path / "state")


def reject_all(change: PreparedChange) -> Decision:
    return Reject(reason="not this one")
