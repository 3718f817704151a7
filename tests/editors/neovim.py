"""Neovim run headless on the docs' snippet, driven through the review flow by nvim_driver.lua."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.editors import scenario
from tests.editors.editor_process import (
    EditorExit,
    isolated_environ,
    run_editor,
    write_driver_config,
)
from tests.editors.report import DriverReport
from tests.editors.snippets import fenced_block, quoted, replace_once

DRIVER = Path(__file__).with_name("nvim_driver.lua")

#: Whole-session bound: a hung editor fails the test instead of stalling the suite.
SESSION_TIMEOUT = 60.0
#: Bound for each step the driver waits on (attach, menu, diagnostic, result).
STEP_TIMEOUT_MS = 15_000


@dataclass(frozen=True)
class NeovimSnippet:
    heading: str  # the heading of docs/getting-started.md the snippet sits under
    needs: tuple[int, int]  # the oldest Neovim it is written for


SNIPPETS = (
    NeovimSnippet("Neovim 0.7", (0, 7)),
    NeovimSnippet("Neovim 0.8 \u2013 0.10", (0, 8)),
    NeovimSnippet("Neovim 0.11+", (0, 11)),
)


def executable() -> str | None:
    return shutil.which("nvim")


def version(nvim: str) -> tuple[int, int]:
    first = subprocess.run(
        [nvim, "--version"], capture_output=True, text=True, timeout=10, check=True
    ).stdout.splitlines()[0]
    match = re.search(r"v(\d+)\.(\d+)", first)
    if match is None:
        raise AssertionError(f"cannot read the Neovim version from {first!r}")
    return int(match.group(1)), int(match.group(2))


def configured_snippet(heading: str, base_url: str) -> str:
    """The docs' snippet with only the command and the init_options changed: this venv's
    server, talking to the model double."""
    text = fenced_block(heading, "lua")
    text = replace_once(text, r'"rune-lsp"', quoted(str(scenario.server_executable())))
    options = ", ".join(
        f"{key} = {quoted(value)}"
        for key, value in (("provider", "ollama"), ("baseUrl", base_url), ("model", scenario.MODEL))
    )
    return replace_once(text, r"init_options = \{[^{}]*\}", f"init_options = {{ {options} }}")


@dataclass(frozen=True)
class NeovimSession:
    exit: EditorExit
    report: DriverReport | None
    log: str  # Neovim's LSP log (the server's stderr lands there)

    def explain(self) -> str:
        state = "timed out" if self.exit.timed_out else f"exited {self.exit.returncode}"
        found = self.report.model_dump_json(indent=1) if self.report else "(no report)"
        return (
            f"nvim {state}\n--- report\n{found}\n--- output\n{self.exit.output[-3000:]}"
            f"\n--- lsp.log\n{self.log[-4000:]}"
        )


def review_in_neovim(
    nvim: str,
    snippet: NeovimSnippet,
    *,
    file: Path,
    base_url: str,
    verdict: str,
    scratch: Path,
    show_diff: bool = False,
) -> NeovimSession:
    """Fix this on the bug line, then pick `verdict` on the pending edit (after Show diff when
    `show_diff`), then `:write`."""
    scratch.mkdir(parents=True, exist_ok=True)
    init = scratch / "init.lua"
    init.write_text(configured_snippet(snippet.heading, base_url), encoding="utf-8")
    config, report_path = write_driver_config(
        scratch,
        file=file,
        line=scenario.BUG_LINE,
        verdict=verdict,
        wait_ms=STEP_TIMEOUT_MS,
        show_diff=show_diff,
    )
    home = scratch / "home"
    env = isolated_environ(home, {"EDITOR_TEST_CONFIG": str(config)})
    argv = [nvim, "--headless", "--clean", "-u", str(init), "-c", f"luafile {DRIVER}"]
    # The 0.7 snippet takes the workspace root from the current directory.
    exit = run_editor(argv, cwd=file.parent, env=env, timeout=SESSION_TIMEOUT)
    log = home / ".cache" / "nvim" / "lsp.log"
    return NeovimSession(
        exit=exit,
        report=DriverReport.read(report_path),
        log=log.read_text(encoding="utf-8", errors="replace") if log.exists() else "",
    )
