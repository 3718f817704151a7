"""The disposable workspaces of the acceptance scenario: a broken `add()` and its failing test,
in `calc.py` (the plumbing tests) or `app.py` (the seeds' scenario on a real coding model)."""

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

#: The seeds' scenario, word for word: what a user types about app.py.
APP_INSTRUCTION = "add(2, 3) returns -1 instead of 5. Fix the bug."
APP_PY = CALC_PY
TEST_APP_PY = TEST_CALC_PY.replace("from calc import", "from app import")


def add_check(module: str) -> str:
    """Python that exits 0 exactly when `module.add(2, 3) == 5` on disk."""
    return (
        f"import sys; sys.dont_write_bytecode = True; import {module}; "
        f"sys.exit(0 if {module}.add(2, 3) == 5 else 1)"
    )


def check_command(module: str) -> str:
    """The run's `checkCommand` for the add in `module`."""
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(add_check(module))}"


ADD_CHECK = add_check("calc")
CHECK_COMMAND = check_command("calc")

# Written by Python or pytest inside the workspace, never by the agent.
_IGNORED_PARTS = frozenset({"__pycache__", ".pytest_cache"})

Snapshot = dict[str, bytes]


def make_calc_workspace(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "calc.py").write_text(CALC_PY, encoding="utf-8")
    (root / "test_calc.py").write_text(TEST_CALC_PY, encoding="utf-8")
    return root


def make_app_workspace(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "app.py").write_text(APP_PY, encoding="utf-8")
    (root / "test_app.py").write_text(TEST_APP_PY, encoding="utf-8")
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


def add_works(root: Path, module: str = "calc") -> bool:
    """Whether `add(2, 3) == 5` with the code now on disk (in a fresh interpreter)."""
    done = subprocess.run(
        [sys.executable, "-c", add_check(module)],
        cwd=root,
        capture_output=True,
        timeout=60,
        check=False,
    )
    return done.returncode == 0
