"""The Emacs (eglot) snippet of docs/getting-started.md, run in a real Emacs in batch mode.

Emacs loads the snippet (only the server path and the model settings changed), asks for
`Rune: Fix this` on a one-line bug through `eglot-code-actions`, waits for the pending edit's
`rune` diagnostic in flymake, picks Show diff / Accept edit / Reject edit on it, saves, and the
test checks the file on disk.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.doubles.model_double import ModelDouble
from tests.editors import emacs, scenario
from tests.editors.editor_process import ReviewStep
from tests.editors.emacs import EmacsSession
from tests.editors.expectations import (
    PER_HUNK_STEPS,
    assert_accepted,
    assert_diff_was_shown,
    assert_pending_edit_was_shown,
    assert_per_hunk_flow,
    assert_rejected,
)

EMACS = emacs.executable()
MISSING = emacs.missing()

pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


def review(
    project: Path,
    double: ModelDouble,
    tmp_path: Path,
    verdict: str,
    *,
    show_diff: bool = False,
    confirm_server_edits: bool = True,
) -> EmacsSession:
    """The whole-edit flow: `verdict` picked on the only hunk's diagnostic."""
    session = run(
        project,
        double,
        tmp_path,
        [ReviewStep(verdict)],
        show_diff=show_diff,
        confirm_server_edits=confirm_server_edits,
    )
    assert session.report is not None
    assert_pending_edit_was_shown(session.report, session.explain())
    return session


def run(
    project: Path,
    double: ModelDouble,
    tmp_path: Path,
    steps: Sequence[ReviewStep],
    *,
    line: int = scenario.BUG_LINE,
    show_diff: bool = False,
    confirm_server_edits: bool = True,
) -> EmacsSession:
    assert EMACS is not None
    session = emacs.review_in_emacs(
        EMACS,
        file=project,
        line=line,
        base_url=double.ollama_url,
        scratch=tmp_path / "emacs",
        steps=steps,
        show_diff=show_diff,
        confirm_server_edits=confirm_server_edits,
    )
    assert session.report is not None and session.report.step == "done", session.explain()
    assert session.exit.returncode == 0, session.explain()
    return session


def test_accepted_edit_lands_in_the_buffer_and_is_saved(
    project: Path, double: ModelDouble, tmp_path: Path
) -> None:
    session = review(project, double, tmp_path, "Accept edit", show_diff=True)
    assert session.report is not None
    assert_diff_was_shown(session.report, session.explain())
    # Eglot asks once more before it applies a server's edit; the user said yes.
    assert len(session.report.confirmations) == 1, session.explain()
    assert_accepted(session.report, double, project, session.explain())


def test_rejected_edit_leaves_the_file_alone(
    project: Path, double: ModelDouble, tmp_path: Path
) -> None:
    session = review(project, double, tmp_path, "Reject edit")
    assert session.report is not None
    assert session.report.prompts == ["Why reject? "], session.explain()  # nothing typed
    assert session.report.verdict_status == "rejected", session.explain()
    assert session.report.confirmations == [], session.explain()
    assert_rejected(session.report, project, session.explain())


def test_declining_eglots_own_question_rejects_the_edit(
    project: Path, double: ModelDouble, tmp_path: Path
) -> None:
    """Eglot answers the server's applyEdit with an error when the user says no there."""
    session = review(project, double, tmp_path, "Accept edit", confirm_server_edits=False)
    assert session.report is not None
    assert len(session.report.confirmations) == 1, session.explain()
    assert session.report.verdict_status == "rejected", session.explain()
    assert_rejected(session.report, project, session.explain())


def test_hunk_by_hunk_with_a_reason_for_the_rejected_one(
    hunks_project: Path, hunks_double: ModelDouble, tmp_path: Path
) -> None:
    """The docs' per-hunk flow: accept hunk 1, reject hunk 2 saying why, accept the rest."""
    session = run(
        hunks_project, hunks_double, tmp_path, PER_HUNK_STEPS, line=scenario.HUNK_LINES[0]
    )
    assert session.report is not None
    # Eglot asks once, when the accepted hunks are sent together.
    assert len(session.report.confirmations) == 1, session.explain()
    assert_per_hunk_flow(session.report, hunks_double, hunks_project, session.explain())
