"""Running a real editor headless, isolated from the user's configuration, bounded in time."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

#: What puts the editors on a Debian 12 machine (Neovim 0.7.2, Emacs 28.2 with eglot 1.9).
APT_LINE = "apt-get install -y neovim emacs-nox elpa-eglot"


@dataclass(frozen=True)
class EditorExit:
    returncode: int | None  # None: killed when the time ran out
    output: str  # stdout and stderr together

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def isolated_environ(home: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """The parent's environment with a fresh HOME and XDG dirs and no `RUNE_*` overrides.

    The editor's language server inherits this, so settings come only from the snippet.
    """
    env = {key: value for key, value in os.environ.items() if not key.startswith("RUNE_")}
    for name in ("config", "cache", "data", "state"):
        folder = home / f".{name}"
        folder.mkdir(parents=True, exist_ok=True)
        env[f"XDG_{name.upper()}_HOME"] = str(folder)
    env["HOME"] = str(home)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


@dataclass(frozen=True)
class ReviewStep:
    """One thing the user does on a pending edit in mode B: go to the diagnostic of hunk
    `hunk` (any hunk's when None) and pick `action` in its code action menu (`via` "menu") or
    among its code lenses ("lens"), typing `reason` when the snippet asks why (None: types
    nothing)."""

    action: str
    hunk: int | None = None
    reason: str | None = None
    via: Literal["menu", "lens"] = "menu"


def write_driver_config(
    scratch: Path,
    *,
    file: Path,
    line: int,
    wait_ms: int,
    steps: Sequence[ReviewStep] = (),
    show_diff: bool = False,
    **extra: object,
) -> tuple[Path, Path]:
    """Write the JSON a driver script reads from $EDITOR_TEST_CONFIG into `scratch`: ask for
    a fix on the 0-based `line`, then (after Show diff when `show_diff`) take `steps`.

    Returns the config's path and the path the driver writes its report to.
    """
    report = scratch / "report.json"
    config = scratch / "driver.json"
    values = {
        "file": str(file),
        "line": line,
        "steps": [asdict(step) for step in steps],
        "report": str(report),
        "wait_ms": wait_ms,
        "show_diff": show_diff,
        **extra,
    }
    config.write_text(json.dumps(values), encoding="utf-8")
    return config, report


def run_editor(
    argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout: float
) -> EditorExit:
    """Run the editor in its own process group; on timeout, or if it leaves its language
    server behind, the whole group is killed."""
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=timeout)
        returncode: int | None = process.returncode
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)
        output, _ = process.communicate()
        returncode = None
    finally:
        _kill_group(process.pid)
    return EditorExit(returncode, output)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
