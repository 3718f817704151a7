"""ripgrep as a fast pre-filter: which of the given files may hold a match.

The file list, the .gitignore handling, the reading and the line matching stay in Python, so a
search gives the same result with or without `rg`. Explicit file arguments bypass rg's own
ignore rules. When rg cannot run the pattern (its regex dialect differs from Python's, e.g. no
look-around), the answer is None and every file is scanned in Python.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

#: Keeps each command line far below the OS argument limit.
_ARG_BYTES = 64 * 1024
_TIMEOUT = 60.0


def ripgrep_candidates(rg: str, pattern: str, files: Sequence[Path]) -> set[Path] | None:
    """The subset of `files` in which rg finds `pattern`; None when rg could not decide."""
    found: set[Path] = set()
    for batch in _batches(files):
        matched = _run(rg, pattern, batch)
        if matched is None:
            return None
        found.update(matched)
    return found


def _batches(files: Sequence[Path]) -> list[list[Path]]:
    batches: list[list[Path]] = []
    current: list[Path] = []
    size = 0
    for path in files:
        length = len(os.fsencode(path)) + 1
        if current and size + length > _ARG_BYTES:
            batches.append(current)
            current, size = [], 0
        current.append(path)
        size += length
    if current:
        batches.append(current)
    return batches


def _run(rg: str, pattern: str, batch: list[Path]) -> set[Path] | None:
    command = [
        rg,
        "--no-config",
        "--files-with-matches",
        "--null",
        "--no-messages",
        "--color=never",
        "--crlf",  # `$` before `\r\n`, as Python matches lines without their ending
        "--regexp",
        pattern,
        "--",
        *map(str, batch),
    ]
    try:
        done = subprocess.run(command, capture_output=True, timeout=_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode == 1:
        return set()
    if done.returncode == 2 and not done.stdout:  # a pattern rg rejects, or only errors
        return None
    if done.returncode not in (0, 2):
        return None
    return {Path(os.fsdecode(name)) for name in done.stdout.split(b"\0") if name}
