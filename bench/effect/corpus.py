"""The effect bench's corpora: small programs with one bug each.

`own` (bench/effect/corpus/): each task directory holds `prog.py` (the bug), `test_prog.py`
(fails on it), `reference.py` (the fix: the test passes with it in prog.py's place) and
`task.json` (the kind of bug); the agent is pointed at `prog.py`.

`multi` (bench/effect/corpus_multi/, issue 26): a package whose module has the bug and a test
file beside it, as a user has them in a git repository. Each task directory holds `ws/` (the
workspace: `pkg/...` and `tests/test_....py`), `reference.py` (the fixed module) and
`task.json` with `program` (the module with the bug), `test` (the test file) and `target` (the
file the agent is pointed at: the failing test, where users stand when a test fails) besides
`kind` and `bug`; the instruction is the issue's "The test TARGET fails. Fix the bug."

`real` (issue 26, point 3): built at bench time by bench/effect/real_bugs.py from a local
ConDefects checkout into a temporary directory, in the `ws/` layout with `target` the program
itself (so each arm's own blind message), never committed.

`release` and `release_multi` (issue 26, point 3): built at bench time by
bench/effect/release_bugs.py from PyPI sdists (the recipes in release_bugs.json name a patch
release and the one before it), in the `ws/` layout; `task.json` adds `test_ids`, the pytest
node ids the check runs (the newer release's tests that fail on the older one). `release`
points the agent at the module, `release_multi` at the failing test file.

Every bench run checks each task it uses both ways before any agent sees it, so a broken task
shows as broken instead of as an agent's failure or success.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"
CORPORA = {"own": CORPUS, "multi": CORPUS.with_name("corpus_multi")}
PROGRAM = "prog.py"
TEST = "test_prog.py"
#: Where a `multi` task keeps its workspace inside its directory.
WORKSPACE = "ws"
#: What "the test" is, for every arm that runs it (Aider's --test-cmd, rune's checkCommand).
#: Without pytest-asyncio (installed beside rune-lsp), whose configuration warning would be
#: noise in every report an agent reads.
PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider -p no:asyncio"
TEST_COMMAND = f"{PYTEST} {TEST}"
#: Lines of pytest's report a user pastes into the message (the issue measured Aider with 25).
PASTED_LINES = 25
TEST_TIMEOUT = 60.0


@dataclass(frozen=True)
class Task:
    name: str  # the directory's name, e.g. 01_sum_to_n
    kind: str
    bug: str
    directory: Path
    program: str = PROGRAM  # the file with the bug, relative to the workspace
    test: str = TEST  # the task's test file, relative to the workspace
    target: str = PROGRAM  # the file the agent is pointed at
    instruction: str | None = None  # None: each arm's own blind message
    #: The pytest node ids the check runs (a `release` task's); empty: the whole test file.
    test_ids: tuple[str, ...] = ()

    def source(self, name: str) -> str:
        return (self.directory / name).read_text(encoding="utf-8")

    @property
    def files(self) -> Path:
        """Where the workspace's files are kept: the task's directory, or its `ws/`."""
        nested = self.directory / WORKSPACE
        return nested if nested.is_dir() else self.directory

    @property
    def buggy(self) -> str:
        return (self.files / self.program).read_text(encoding="utf-8")

    @property
    def test_args(self) -> tuple[str, ...]:
        """What follows PYTEST in the check: the node ids, or the test file."""
        return self.test_ids or (self.test,)

    @property
    def test_command(self) -> str:
        return " ".join((PYTEST, *self.test_args))

    def workspace_files(self) -> list[str]:
        """The files a user has: the program and its test, or the whole `ws/` tree."""
        if self.files == self.directory:
            return [self.program, self.test]
        return sorted(
            p.relative_to(self.files).as_posix()
            for p in self.files.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        )


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
        task = Task(directory.name, str(meta["kind"]), str(meta["bug"]), directory)
        if "target" in meta:
            program, test, target = str(meta["program"]), str(meta["test"]), str(meta["target"])
            task = replace(task, program=program, test=test, target=target)
        if "test_ids" in meta:
            task = replace(task, test_ids=tuple(str(i) for i in meta["test_ids"]))
        if task.target != task.program:  # pointed at the test, not at the bug
            task = replace(task, instruction=f"The test {task.target} fails. Fix the bug.")
        tasks.append(task)
    return tuple(tasks)


#: Corpora built at bench time into a temporary directory, never committed.
BUILT_CORPORA = ("real", "release", "release_multi")


def load_corpus(name: str, built: Path | None = None) -> tuple[Task, ...]:
    """The tasks of the corpus `name` (`own` or `multi`; `real`, `release`, `release_multi`:
    the tasks bench/effect/real_bugs.py or release_bugs.py built into `built`, since those
    corpora are never committed)."""
    if name in BUILT_CORPORA:
        if built is None and name == "real":
            raise ValueError("the real corpus is built from a ConDefects checkout: --real-bugs-dir")
        if built is None:
            raise ValueError(f"the {name} corpus is built at bench time: no directory given")
        return load_tasks(built)
    if name not in CORPORA:
        known = ", ".join((*CORPORA, *BUILT_CORPORA))
        raise ValueError(f"unknown corpus {name!r}; choose from {known}")
    return load_tasks(CORPORA[name])


def make_workspace(task: Task, destination: Path) -> Path:
    """A fresh workspace as a user has it: the buggy program and its failing test (for a
    `multi` task, in a git repository, as rune-lsp fix takes its workspace from one)."""
    destination.mkdir(parents=True, exist_ok=True)
    for name in task.workspace_files():
        (destination / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(task.files / name, destination / name)
    if task.files != task.directory:
        (destination / ".git").mkdir(exist_ok=True)
    return destination


def run_test(task: Task, program_text: str) -> TestRun:
    """The task's own test (never a copy an agent may have changed) against `program_text`."""
    return _run_with(task, {task.program: program_text})


def _run_with(task: Task, texts: Mapping[str, str]) -> TestRun:
    """The task's own test in a fresh copy of its workspace whose files `texts` replace."""
    with tempfile.TemporaryDirectory(prefix="rune-effect-test-") as scratch:
        root = make_workspace(task, Path(scratch))
        for name, text in texts.items():
            (root / name).write_text(text, encoding="utf-8")
        try:
            done = subprocess.run(
                [*PYTEST.split(), *task.test_args],
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
    before = run_test(task, task.buggy)
    after = run_test(task, task.source("reference.py"))
    return TaskCheck(task.name, fails_before=not before.passed, passes_after=after.passed)


def failing_output(task: Task) -> str:
    """The end of pytest's report on the buggy program: what a user pastes."""
    report = run_test(task, task.buggy).report
    return "\n".join(report.splitlines()[-PASTED_LINES:])


def is_fixed(task: Task, workspace: Path) -> bool:
    """Whether the code the agent left passes the task's original test: its program (for a
    `multi` task, every file of the workspace but the test, so a fix in the module the buggy
    one is called through counts as it would for the user). Only Python sources: a `real`
    task's cases/ are part of its test, which an agent's edit must not change."""
    if not (workspace / task.program).is_file():
        return False
    texts = {}
    for name in task.workspace_files():
        left = workspace / name
        if name != task.test and name.endswith(".py") and left.is_file():
            texts[name] = left.read_text(encoding="utf-8", errors="replace")
    return _run_with(task, texts).passed
