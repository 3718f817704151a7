"""A check offered for one run, when the user configured none (issue 26, point 6).

Most users never set `checkCommand`. When Fix this is invoked on a test, or on code a test
imports, in a workspace whose test runner is configured (pytest in `pyproject.toml`,
`pytest.ini`, `setup.cfg` or `tox.ini`, or a `tests/` folder of `test_*.py`; a `package.json`
with a `test` script), the narrowest check (that test file) is offered for this run. It runs
only once the user accepts it, asked exactly as `run_command` asks (`server/approval.py`,
`cli/review.py`). Finding it reads the disk, so it is the runner's.
"""

from __future__ import annotations

import configparser
import json
import os
import shlex
import shutil
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rune_lsp.loop.state import PreparedCommand
from rune_lsp.loop.task import is_test_path
from rune_lsp.runner.py_imports import imported_files
from rune_lsp.settings import Settings

#: Test files read to find the one that imports the code being fixed: a bound on a large
#: repository (the offer is made before the run starts, while the user waits).
MAX_TEST_FILES = 400
#: Folders never searched for tests: installed code, caches, version control.
_SKIPPED = frozenset(
    {"node_modules", ".venv", "venv", ".tox", ".git", "__pycache__", "build", "dist", ".nox"}
)
#: `npm init`'s placeholder test script, which fails by design.
_NPM_PLACEHOLDER = "no test specified"
_JS_SUFFIXES = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs")
#: The id the approval prompt and the receipt know an offered check by.
OFFER_ID = "offered-check"


@dataclass(frozen=True)
class OfferedCheck:
    """The check offered for a run: the command, where it runs, and why it was chosen."""

    command: str
    cwd: Path
    reason: str  # e.g. "tests/test_x.py tests pkg/x.py; pytest is configured in pyproject.toml"

    def as_command(self) -> PreparedCommand:
        """The check as the approval asks about a command the model wants to run."""
        return PreparedCommand(
            edit_id=OFFER_ID,
            call_id=OFFER_ID,
            command=self.command,
            cwd=str(self.cwd),
            reason=self.asking,
        )

    @property
    def asking(self) -> str:
        """How the approval introduces the command."""
        return f"rune offers a check for this run ({self.reason})"

    def accepted(self, settings: Settings) -> Settings:
        """The run's settings once the user accepted: the check is its `checkCommand`."""
        return settings.model_copy(update={"check_command": self.command})


def offered_check(settings: Settings, root: Path, target: Path) -> OfferedCheck | None:
    """The narrowest check for a run on `target` in the workspace `root`, or None: a check is
    configured already, `offerCheck` is off, no test runner is configured, or no test file
    covers `target`."""
    if settings.check_command or not settings.offer_check:
        return None
    try:
        shown = target.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:  # single-file mode outside any folder: nothing to run tests from
        return None
    if target.suffix == ".py":
        return _python_check(root, target, shown)
    if target.suffix in _JS_SUFFIXES:
        return _npm_check(root, target, shown)
    return None


# --- Python: pytest ---------------------------------------------------------------------------


def _python_check(root: Path, target: Path, shown: str) -> OfferedCheck | None:
    runner = _pytest_configured(root)
    if runner is None:
        return None
    if is_test_path(shown):
        test = shown
        why = f"{shown} is a test file; {runner}"
    else:
        found = _test_importing(root, target)
        if found is None:
            return None
        test = found
        why = f"{test} tests {shown}; {runner}"
    command = f"{_python(root)} -m pytest -q {shlex.quote(test)}"
    return OfferedCheck(command=command, cwd=root, reason=why)


def _pytest_configured(root: Path) -> str | None:
    """Where the workspace says it runs pytest, in words; None when it does not."""
    pyproject = _read(root / "pyproject.toml")
    if pyproject is not None:
        try:
            tool = tomllib.loads(pyproject).get("tool", {})
        except tomllib.TOMLDecodeError:
            tool = {}
        if isinstance(tool, dict) and "ini_options" in tool.get("pytest", {}):
            return "pytest is configured in pyproject.toml"
    if (root / "pytest.ini").is_file():
        return "pytest is configured in pytest.ini"
    for name, section in (("setup.cfg", "tool:pytest"), ("tox.ini", "pytest")):
        text = _read(root / name)
        if text is not None and section in _sections(text):
            return f"pytest is configured in {name}"
    for folder in ("tests", "test"):
        if any((root / folder).glob("test_*.py")):
            return f"{folder}/ holds test_*.py files"
    return None


def _test_importing(root: Path, target: Path) -> str | None:
    """The first test file that imports `target` (named after it first: `test_x.py` for
    `x.py`), as a path relative to `root`."""
    resolved = target.resolve()
    tests = sorted(
        _test_files(root),
        key=lambda p: (p.name not in (f"test_{target.stem}.py", f"{target.stem}_test.py"), p),
    )
    for test in tests:
        text = _read(test)
        if text is None:
            continue
        if any(path == resolved for path, _ in imported_files(text, test.resolve(), root)):
            return test.relative_to(root).as_posix()
    return None


def _test_files(root: Path) -> Iterator[Path]:
    count = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py") and is_test_path(name):
                count += 1
                if count > MAX_TEST_FILES:
                    return
                yield Path(folder) / name


def _python(root: Path) -> str:
    """The interpreter a user of this workspace runs its tests with: its own virtualenv's,
    else `python` (or `python3` where only that exists) from the PATH."""
    for venv in (".venv", "venv"):
        candidate = root / venv / "bin" / "python"
        if candidate.is_file():
            return shlex.quote(f"{venv}/bin/python")
    return "python" if shutil.which("python") else "python3"


# --- JavaScript: npm test ---------------------------------------------------------------------


def _npm_check(root: Path, target: Path, shown: str) -> OfferedCheck | None:
    if not _npm_test_script(root):
        return None
    why = "package.json has a test script"
    if is_test_path(shown):
        return OfferedCheck(f"npm test -- {shlex.quote(shown)}", root, f"{shown} is a test; {why}")
    for test in _js_tests_of(target):
        if test.is_file():
            path = test.relative_to(root).as_posix()
            return OfferedCheck(
                f"npm test -- {shlex.quote(path)}", root, f"{path} tests {shown}; {why}"
            )
    return None


def _npm_test_script(root: Path) -> bool:
    text = _read(root / "package.json")
    if text is None:
        return False
    try:
        manifest = json.loads(text)
    except ValueError:
        return False
    scripts = manifest.get("scripts") if isinstance(manifest, dict) else None
    test = scripts.get("test") if isinstance(scripts, dict) else None
    return isinstance(test, str) and bool(test.strip()) and _NPM_PLACEHOLDER not in test


def _js_tests_of(target: Path) -> Iterator[Path]:
    """The test files Jest and Vitest users put beside code: `x.test.ts`, `__tests__/x.ts`."""
    stem, suffix = target.stem, target.suffix
    for kind in ("test", "spec"):
        yield target.with_name(f"{stem}.{kind}{suffix}")
        yield target.parent / "__tests__" / f"{stem}.{kind}{suffix}"
    yield target.parent / "__tests__" / target.name


# --- reading ----------------------------------------------------------------------------------


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _sections(text: str) -> list[str]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    return parser.sections()
