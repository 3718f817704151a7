"""The Neovim snippets of docs/getting-started.md, run in a real headless Neovim.

Each test starts Neovim on a snippet (only the server path and the model settings changed),
asks for `Rune: Fix this` on a one-line bug, waits for the pending edit's `rune` diagnostic,
picks Show diff / Accept edit / Reject edit on it, saves, and checks the file on disk.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.doubles.model_double import ModelDouble
from tests.editors import neovim
from tests.editors.editor_process import APT_LINE
from tests.editors.expectations import (
    assert_accepted,
    assert_diff_was_shown,
    assert_pending_edit_was_shown,
    assert_rejected,
)
from tests.editors.neovim import NeovimSession, NeovimSnippet

NVIM = neovim.executable()

pytestmark = pytest.mark.skipif(NVIM is None, reason=f"nvim is not installed ({APT_LINE})")


@pytest.fixture(params=[pytest.param(s, id=s.heading) for s in neovim.SNIPPETS])
def snippet(request: pytest.FixtureRequest) -> NeovimSnippet:
    wanted: NeovimSnippet = request.param
    assert NVIM is not None
    found = neovim.version(NVIM)
    if found < wanted.needs:
        pytest.skip(
            f"the '{wanted.heading}' snippet needs Neovim {'.'.join(map(str, wanted.needs))}+; "
            f"this machine has {'.'.join(map(str, found))} (Debian 12 ships 0.7.2 and no newer "
            "Neovim is packaged here)"
        )
    return wanted


def review(
    snippet: NeovimSnippet,
    project: Path,
    double: ModelDouble,
    tmp_path: Path,
    verdict: str,
    *,
    show_diff: bool = False,
) -> NeovimSession:
    assert NVIM is not None
    session = neovim.review_in_neovim(
        NVIM,
        snippet,
        file=project,
        base_url=double.ollama_url,
        verdict=verdict,
        scratch=tmp_path / "nvim",
        show_diff=show_diff,
    )
    assert session.report is not None and session.report.step == "done", session.explain()
    assert session.exit.returncode == 0, session.explain()
    assert_pending_edit_was_shown(session.report, session.explain())
    return session


def test_accepted_edit_lands_in_the_buffer_and_is_saved(
    snippet: NeovimSnippet, project: Path, double: ModelDouble, tmp_path: Path
) -> None:
    session = review(snippet, project, double, tmp_path, "Accept edit", show_diff=True)
    assert session.report is not None
    assert_diff_was_shown(session.report, session.explain())
    assert_accepted(session.report, double, project, session.explain())


def test_rejected_edit_leaves_the_file_alone(
    snippet: NeovimSnippet, project: Path, double: ModelDouble, tmp_path: Path
) -> None:
    session = review(snippet, project, double, tmp_path, "Reject edit")
    assert session.report is not None
    assert session.report.verdict_status == "rejected", session.explain()
    assert_rejected(session.report, project, session.explain())
