"""Emacs run in batch mode on the docs' eglot snippet, driven by eglot_driver.el."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.editors import scenario
from tests.editors.editor_process import (
    APT_LINE,
    EditorExit,
    ReviewStep,
    isolated_environ,
    run_editor,
    write_driver_config,
)
from tests.editors.report import DriverReport
from tests.editors.snippets import fenced_block, quoted, replace_once

DRIVER = Path(__file__).with_name("eglot_driver.el")
HEADING = "Emacs (eglot)"

SESSION_TIMEOUT = 60.0
STEP_TIMEOUT_MS = 15_000


def executable() -> str | None:
    return shutil.which("emacs")


def missing() -> str | None:
    """Why the Emacs tests cannot run here, or None when Emacs and eglot are both there."""
    emacs = executable()
    if emacs is None:
        return f"emacs is not installed ({APT_LINE})"
    probe = subprocess.run(
        [emacs, "--batch", "-q", "--eval", "(require 'eglot)"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if probe.returncode != 0:
        return f"eglot does not load in this Emacs ({APT_LINE}): {probe.stderr.strip()[-200:]}"
    return None


def configured_snippet(base_url: str) -> str:
    """The docs' snippet with only the command and the initializationOptions changed: this
    venv's server, talking to the model double."""
    text = fenced_block(HEADING, "elisp")
    text = replace_once(text, r'"rune-lsp"', quoted(str(scenario.server_executable())))
    options = " ".join(
        f":{key} {quoted(value)}"
        for key, value in (("provider", "ollama"), ("baseUrl", base_url), ("model", scenario.MODEL))
    )
    return replace_once(
        text, r":initializationOptions \([^()]*\)", f":initializationOptions ({options})"
    )


@dataclass(frozen=True)
class EmacsSession:
    exit: EditorExit
    report: DriverReport | None

    def explain(self) -> str:
        state = "timed out" if self.exit.timed_out else f"exited {self.exit.returncode}"
        report = self.report
        found = report.model_dump_json(indent=1, exclude={"server_log"}) if report else "-"
        log = report.server_log[-5000:] if report else ""
        return (
            f"emacs {state}\n--- report\n{found}\n--- output\n{self.exit.output[-3000:]}"
            f"\n--- server stderr\n{log}"
        )


def review_in_emacs(
    emacs: str,
    *,
    file: Path,
    base_url: str,
    scratch: Path,
    steps: Sequence[ReviewStep],
    line: int = scenario.BUG_LINE,
    show_diff: bool = False,
    confirm_server_edits: bool = True,
) -> EmacsSession:
    """Fix this on the 0-based `line`, then take `steps` on the pending edit's diagnostics
    (after Show diff when `show_diff`), then save.

    `confirm_server_edits` is the answer to eglot's own "Server wants to edit" question."""
    scratch.mkdir(parents=True, exist_ok=True)
    snippet = scratch / "rune-eglot.el"
    snippet.write_text(configured_snippet(base_url), encoding="utf-8")
    config, report_path = write_driver_config(
        scratch,
        file=file,
        line=line,
        wait_ms=STEP_TIMEOUT_MS,
        steps=steps,
        show_diff=show_diff,
        confirm_server_edits=confirm_server_edits,
    )
    env = isolated_environ(scratch / "home", {"EDITOR_TEST_CONFIG": str(config)})
    # -q: no user init file, but the site start-up that puts Debian's elpa-eglot on the path.
    argv = [emacs, "--batch", "-q", "-l", str(snippet), "-l", str(DRIVER)]
    exit = run_editor(argv, cwd=file.parent, env=env, timeout=SESSION_TIMEOUT)
    return EmacsSession(exit=exit, report=DriverReport.read(report_path))
