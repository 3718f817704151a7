"""The Neovim snippets of docs/getting-started.md, run in a real headless Neovim.

Each test starts Neovim on a snippet (only the server path and the model settings changed),
asks for `Rune: Fix this`, decides the pending edit, saves, and checks the file on disk. Each
snippet runs on every installed Neovim it is written for: Debian's 0.7 and the 0.12 of the test
extras. Neovim 0.12 is reviewed both ways: by its own confirmation prompt (mode A, as it
starts) and in the buffer (mode B, with the docs' addition).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from tests.doubles.model_double import ModelDouble
from tests.editors import neovim, scenario
from tests.editors.editor_process import APT_LINE, ReviewStep
from tests.editors.expectations import (
    PER_HUNK_STEPS,
    assert_accepted,
    assert_diff_was_shown,
    assert_landed,
    assert_pending_edit_was_shown,
    assert_per_hunk_flow,
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
    *,
    line: int = scenario.BUG_LINE,
    steps: Sequence[ReviewStep] = (),
    show_diff: bool = False,
    confirm: bool | None = None,
) -> NeovimSession:
    session = neovim.review_in_neovim(
        nvim,
        snippet,
        file=project,
        line=line,
        base_url=double.ollama_url,
        scratch=tmp_path / "nvim",
        steps=steps,
        show_diff=show_diff,
        confirm=confirm,
        # Neovim before 0.12 reviews in the buffer anyway: the docs' addition is for 0.12.
        in_buffer=confirm is None and nvim.annotates(),
    )
    assert session.report is not None and session.report.step == "done", session.explain()
    assert session.exit.returncode == 0, session.explain()
    return session


# --- mode B: a diagnostic per hunk with its code actions -----------------------------------------


@pytest.mark.parametrize(("nvim", "snippet"), _cases())
def test_accepted_edit_lands_in_the_buffer_and_is_saved(
    nvim: Neovim, snippet: NeovimSnippet, project: Path, double: ModelDouble, tmp_path: Path
) -> None:
    steps = [ReviewStep("Accept edit")]
    session = review(nvim, snippet, project, double, tmp_path, steps=steps, show_diff=True)
    assert session.report is not None
    assert_pending_edit_was_shown(session.report, session.explain())
    assert_diff_was_shown(session.report, session.explain())
    assert session.report.confirmations == [], session.explain()
    assert_accepted(session.report, double, project, session.explain())


@pytest.mark.parametrize(("nvim", "snippet"), _cases())
def test_rejected_edit_leaves_the_file_alone(
    nvim: Neovim, snippet: NeovimSnippet, project: Path, double: ModelDouble, tmp_path: Path
) -> None:
    """Reject edit asks why too; typing nothing rejects without a reason."""
    session = review(nvim, snippet, project, double, tmp_path, steps=[ReviewStep("Reject edit")])
    assert session.report is not None
    assert_pending_edit_was_shown(session.report, session.explain())
    assert session.report.prompts == ["Why reject? "], session.explain()
    assert session.report.verdict_status == "rejected", session.explain()
    assert session.report.apply_answers == [], session.explain()
    assert_rejected(session.report, project, session.explain())


@pytest.mark.parametrize(("nvim", "snippet"), _cases())
def test_hunk_by_hunk_with_a_reason_for_the_rejected_one(
    nvim: Neovim,
    snippet: NeovimSnippet,
    hunks_project: Path,
    hunks_double: ModelDouble,
    tmp_path: Path,
) -> None:
    """The docs' per-hunk flow: accept hunk 1, reject hunk 2 saying why, accept the rest."""
    session = review(
        nvim,
        snippet,
        hunks_project,
        hunks_double,
        tmp_path,
        line=scenario.HUNK_LINES[0],
        steps=PER_HUNK_STEPS,
    )
    report = session.report
    assert report is not None
    assert_per_hunk_flow(report, hunks_double, hunks_project, session.explain())
    if nvim.version >= (0, 10):  # inlay hints, once enabled: each proposed line at the end
        expected = [
            (line, f"\u2192 {fixed.strip()}")
            for line, (_, fixed) in zip(scenario.HUNK_LINES, scenario.HUNK_FIXES, strict=True)
        ]
        assert report.inlay_hints == expected, session.explain()
    else:
        assert report.inlay_hints == [], session.explain()
    # Code lenses only for a Neovim that advertises them: `Accept` and `Reject` above each hunk.
    lenses = [(line, title) for line in scenario.HUNK_LINES for title in ("Accept", "Reject")]
    assert report.lenses == (lenses if nvim.advertises_lenses() else []), session.explain()


@pytest.mark.parametrize(("nvim", "snippet"), _cases())
def test_code_lenses_decide_hunks_too(
    nvim: Neovim,
    snippet: NeovimSnippet,
    hunks_project: Path,
    hunks_double: ModelDouble,
    tmp_path: Path,
) -> None:
    """`:lua vim.lsp.codelens.run()` on each hunk: Accept, Reject saying why, Accept."""
    if not nvim.advertises_lenses():
        pytest.skip(f"Neovim {nvim.name} does not advertise code lenses (0.11+ does)")
    steps = [
        ReviewStep("Accept", hunk=1, via="lens"),
        ReviewStep("Reject", hunk=2, reason=scenario.REASON, via="lens"),
        ReviewStep("Accept", hunk=3, via="lens"),
    ]
    session = review(
        nvim,
        snippet,
        hunks_project,
        hunks_double,
        tmp_path,
        line=scenario.HUNK_LINES[0],
        steps=steps,
    )
    report = session.report
    assert report is not None
    assert report.offered[1:] == [["Accept", "Reject"]] * 3, session.explain()
    assert report.statuses == [
        ("rune.acceptHunk", "pending"),
        ("rune.rejectHunk", "pending"),
        ("rune.acceptHunk", "partial"),
    ], session.explain()
    assert report.prompts == ["Why reject? "], session.explain()
    result = report.run_result
    assert result is not None
    assert [(e.path, e.status) for e in result.edits] == [(scenario.FILE_NAME, "partial")]
    told = json.dumps(hunks_double.chat_requests[-1].body["messages"])
    assert scenario.REASON in told, session.explain()
    assert hunks_project.read_text(encoding="utf-8") == scenario.hunks_kept(1, 3)


# --- mode A: Neovim 0.12's own "Apply all changes?" prompt ---------------------------------------


@pytest.mark.parametrize(("nvim", "snippet"), _annotating_cases())
def test_yes_to_neovims_prompt_applies_the_edit(
    nvim: Neovim, snippet: NeovimSnippet, project: Path, double: ModelDouble, tmp_path: Path
) -> None:
    session = review(nvim, snippet, project, double, tmp_path, confirm=True)
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
    session = review(nvim, snippet, project, double, tmp_path, confirm=False)
    report = session.report
    assert report is not None
    assert len(report.confirmations) == 1, session.explain()
    assert report.apply_answers == [True], session.explain()
    assert_rejected(report, project, session.explain())
