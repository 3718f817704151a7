"""The Neovim snippets of docs/getting-started.md, run in a real headless Neovim.

Each test starts Neovim on a snippet (only the server path and the model settings changed),
asks for `Rune: Fix this` on a one-line bug, decides the pending edit, saves, and checks the
file on disk. Each snippet runs on every installed Neovim it is written for: Debian's 0.7 and
the 0.12 of the test extras. Neovim 0.12 is reviewed both ways: by its own confirmation prompt
(mode A, as it starts) and in the buffer (mode B, with the docs' addition).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.doubles.model_double import ModelDouble
from tests.editors import neovim, scenario
from tests.editors.editor_process import APT_LINE
from tests.editors.expectations import (
    assert_accepted,
    assert_diff_was_shown,
    assert_landed,
    assert_pending_edit_was_shown,
    assert_rejected,
)
from tests.editors.neovim import Neovim, NeovimSession, NeovimSnippet

NEOVIMS = neovim.installed()
WHERE = (
    f"Neovim comes from Debian ({APT_LINE}) and from the test extras ({neovim.PYPI_PACKAGE}, 0.12)"
)


def _case_iter(*, annotating_only: bool = False) -> Iterator[object]:
    """(Neovim, snippet) for each snippet and each installed Neovim it is written for."""
    for snippet in neovim.SNIPPETS:
        fitting = [
            nvim
            for nvim in NEOVIMS
            if snippet.fits(nvim.version) and (nvim.annotates() or not annotating_only)
        ]
        for nvim in fitting:
            yield pytest.param(nvim, snippet, id=f"{nvim.name}-{snippet.heading}")
        if not fitting and not annotating_only:
            found = ", ".join(f"{n.name} ({n.origin})" for n in NEOVIMS) or "none"
            reason = f"no installed Neovim fits the '{snippet.heading}' snippet: {found}; {WHERE}"
            yield pytest.param(None, snippet, id=snippet.heading, marks=pytest.mark.skip(reason))


def _cases() -> list[object]:
    return list(_case_iter())


def _annotating_cases() -> list[object]:
    cases = list(_case_iter(annotating_only=True))
    if cases:
        return cases
    reason = f"no installed Neovim confirms annotated edits (0.12+); {WHERE}"
    return [pytest.param(None, None, id="mode-A", marks=pytest.mark.skip(reason))]


def review(
    nvim: Neovim,
    snippet: NeovimSnippet,
    project: Path,
    double: ModelDouble,
    tmp_path: Path,
    verdict: str,
    *,
    show_diff: bool = False,
    in_buffer: bool = True,
) -> NeovimSession:
    session = neovim.review_in_neovim(
        nvim,
        snippet,
        file=project,
        base_url=double.ollama_url,
        verdict=verdict,
        scratch=tmp_path / "nvim",
        show_diff=show_diff,
        # Neovim before 0.12 reviews in the buffer anyway: the docs' addition is for 0.12.
        in_buffer=in_buffer and nvim.annotates(),
    )
    assert session.report is not None and session.report.step == "done", session.explain()
    assert session.exit.returncode == 0, session.explain()
    return session


# --- mode B: a diagnostic with Accept edit / Reject edit / Show diff -----------------------------


@pytest.mark.parametrize(("nvim", "snippet"), _cases())
def test_accepted_edit_lands_in_the_buffer_and_is_saved(
    nvim: Neovim, snippet: NeovimSnippet, project: Path, double: ModelDouble, tmp_path: Path
) -> None:
    session = review(nvim, snippet, project, double, tmp_path, "Accept edit", show_diff=True)
    assert session.report is not None
    assert_pending_edit_was_shown(session.report, session.explain())
    assert_diff_was_shown(session.report, session.explain())
    assert session.report.confirmations == [], session.explain()
    assert_accepted(session.report, double, project, session.explain())


@pytest.mark.parametrize(("nvim", "snippet"), _cases())
def test_rejected_edit_leaves_the_file_alone(
    nvim: Neovim, snippet: NeovimSnippet, project: Path, double: ModelDouble, tmp_path: Path
) -> None:
    session = review(nvim, snippet, project, double, tmp_path, "Reject edit")
    assert session.report is not None
    assert_pending_edit_was_shown(session.report, session.explain())
    assert session.report.verdict_status == "rejected", session.explain()
    assert session.report.apply_answers == [], session.explain()
    assert_rejected(session.report, project, session.explain())


# --- mode A: Neovim 0.12's own "Apply all changes?" prompt ---------------------------------------


@pytest.mark.parametrize(("nvim", "snippet"), _annotating_cases())
def test_yes_to_neovims_prompt_applies_the_edit(
    nvim: Neovim, snippet: NeovimSnippet, project: Path, double: ModelDouble, tmp_path: Path
) -> None:
    session = review(nvim, snippet, project, double, tmp_path, "Accept edit", in_buffer=False)
    report = session.report
    assert report is not None
    assert report.pending is None, session.explain()  # no diagnostic: Neovim asks itself
    [question] = report.confirmations
    assert question.startswith("Apply all changes?"), session.explain()
    assert scenario.FILE_NAME in question, session.explain()
    assert report.apply_answers == [True], session.explain()
    assert_landed(report, double, project, session.explain())


@pytest.mark.parametrize(("nvim", "snippet"), _annotating_cases())
def test_no_to_neovims_prompt_is_a_rejection_though_it_answers_applied(
    nvim: Neovim, snippet: NeovimSnippet, project: Path, double: ModelDouble, tmp_path: Path
) -> None:
    """Neovim answers `applied: true` after the user's No; the unchanged text says otherwise."""
    session = review(nvim, snippet, project, double, tmp_path, "Reject edit", in_buffer=False)
    report = session.report
    assert report is not None
    assert len(report.confirmations) == 1, session.explain()
    assert report.apply_answers == [True], session.explain()
    assert_rejected(report, project, session.explain())
