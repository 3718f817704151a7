"""The disposable workspace of the acceptance scenario: a broken `add()` and its failing test."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

CALC_PY = '''\
def add(a, b):
    """Return the sum of a and b."""
    return a - b
'''

TEST_CALC_PY = """\
from calc import add


def test_add():
    assert add(2, 3) == 5
"""

INSTRUCTION = "You are a coding agent. Fix bugs using your tools"

#: What the run's `checkCommand` runs: exit 0 exactly when `add(2, 3) == 5` on disk.
ADD_CHECK = (
    "import sys; sys.dont_write_bytecode = True; import calc; "
    "sys.exit(0 if calc.add(2, 3) == 5 else 1)"
)
CHECK_COMMAND = f"{shlex.quote(sys.executable)} -c {shlex.quote(ADD_CHECK)}"

# Written by Python or pytest inside the workspace, never by the agent.
_IGNORED_PARTS = frozenset({"__pycache__", ".pytest_cache"})

Snapshot = dict[str, bytes]


def make_calc_workspace(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "calc.py").write_text(CALC_PY, encoding="utf-8")
    (root / "test_calc.py").write_text(TEST_CALC_PY, encoding="utf-8")
    return root


def snapshot(root: Path) -> Snapshot:
    """Every file under `root` (workspace-relative, `/`-separated) with its bytes."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not _IGNORED_PARTS & set(path.relative_to(root).parts)
    }


def changed_files(before: Snapshot, after: Snapshot) -> set[str]:
    """Files added, removed or changed between two snapshots."""
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def add_works(root: Path) -> bool:
    """Whether `add(2, 3) == 5` with the code now on disk (in a fresh interpreter)."""
    done = subprocess.run(
        [sys.executable, "-c", ADD_CHECK], cwd=root, capture_output=True, timeout=60, check=False
    )
    return done.returncode == 0
