"""A temp workspace, editor buffers over it, and the executor wired to both."""

from __future__ import annotations

from pathlib import Path

import pytest

from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.sandbox import Sandbox
from tests.tools.overlay import OverlayDocuments


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root.resolve()


@pytest.fixture
def buffers() -> dict[Path, str]:
    """Open editor buffers by path; tests add unsaved text here."""
    return {}


@pytest.fixture
def tools(ws: Path, buffers: dict[Path, str]) -> WorkspaceTools:
    return WorkspaceTools(
        ws, Sandbox.for_workspace([ws]), OverlayDocuments(buffers), use_ripgrep=False
    )
