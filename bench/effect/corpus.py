"""The effect bench's own corpus: small programs with one bug each (bench/effect/corpus/).

Each task directory holds `prog.py` (the bug), `test_prog.py` (fails on it), `reference.py`
(the fix: the test passes with it in prog.py's place) and `task.json` (the kind of bug). Every
bench run checks each task it uses both ways before any agent sees it, so a broken task shows
as broken instead of as an agent's failure or success.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"
PROGRAM = "prog.py"
TEST = "test_prog.py"
#: What "the test" is, for every arm that runs it (Aider's --test-cmd, rune's checkCommand).
#: Without pytest-asyncio (installed beside rune-lsp), whose configuration warning would be
#: noise in every report an agent reads.
TEST_COMMAND = f"{sys.executable} -m pytest -q -p no:cacheprovider -p no:asyncio {TEST}"
#: Lines of pytest's report a user pastes into the message (the issue measured Aider with 25).
PASTED_LINES = 25
TEST_TIMEOUT = 60.0


@dataclass(frozen=True)
class Task:
    name: str  # the directory's name, e.g. 01_sum_to_n
    kind: str
    bug: str
    directory: Path

    def source(self, name: str) -> str:
        return (self.directory / name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class TestRun:
    passed: bool
    report: str  # pytest's report (its stdout)
    errors: str = ""  # its stderr
    timed_out: bool = False


@dataclass(frozen=True)
class TaskCheck:
    """Whether the task is sound: its test fails on the bug and passes on the reference."""

    task: str
    fails_before: bool
    passes_after: bool

    @property
    def sound(self) -> bool:
        return self.fails_before and self.passes_after


def load_tasks(root: Path = CORPUS) -> tuple[Task, ...]:
    tasks = []
    for directory in sorted(p for p in root.iterdir() if (p / "task.json").is_file()):
        meta = json.loads((directory / "task.json").read_text(encoding="utf-8"))
        tasks.append(Task(directory.name, str(meta["kind"]), str(meta["bug"]), directory))
    return tuple(tasks)


def make_workspace(task: Task, destination: Path) -> Path:
    """A fresh workspace as a user has it: the buggy program and its failing test."""
    destination.mkdir(parents=True, exist_ok=True)
    for name in (PROGRAM, TEST):
        shutil.copyfile(task.directory / name, destination / name)
    return destination


def run_test(task: Task, program_text: str) -> TestRun:
    """The task's own test (never a copy an agent may have changed) against `program_text`."""
    with tempfile.TemporaryDirectory(prefix="rune-effect-test-") as scratch:
        root = Path(scratch)
        (root / PROGRAM).write_text(program_text, encoding="utf-8")
        shutil.copyfile(task.directory / TEST, root / TEST)
        try:
            done = subprocess.run(
                TEST_COMMAND.split(),
                cwd=root,
                capture_output=True,
                text=True,
                timeout=TEST_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return TestRun(passed=False, report="timed out", timed_out=True)
    return TestRun(passed=done.returncode == 0, report=done.stdout, errors=done.stderr)


def check_task(task: Task) -> TaskCheck:
    before = run_test(task, task.source(PROGRAM))
    after = run_test(task, task.source("reference.py"))
    return TaskCheck(task.name, fails_before=not before.passed, passes_after=after.passed)


def failing_output(task: Task) -> str:
    """The end of pytest's report on the buggy program: what a user pastes."""
    report = run_test(task, task.source(PROGRAM)).report
    return "\n".join(report.splitlines()[-PASTED_LINES:])


def is_fixed(task: Task, workspace: Path) -> bool:
    """Whether the program the agent left passes the task's original test."""
    program = workspace / PROGRAM
    if not program.is_file():
        return False
    return run_test(task, program.read_text(encoding="utf-8")).passed
