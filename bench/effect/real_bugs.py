"""The `real` corpus (issue 26, point 3): bugs real people made, built at bench time from a
local copy of ConDefects (github.com/appmlk/ConDefects), never committed here.

ConDefects' layout, as its toolkit (Tool/RunTest.py) reads it:

    Code/<task>/Python/<submission>/faultyVersion.py   the submission judged wrong
    Code/<task>/Python/<submission>/correctVersion.py  the same user's accepted fix
    Code/<task>/Python/<submission>/faultLocation.txt  the faulty line's number
    Test/<task>/in/<case>, Test/<task>/out/<case>      AtCoder's cases (Test.zip, a separate
                                                       download the repository does not hold)

`build` picks `count` submissions (a seeded shuffle, one per AtCoder task, 20 to 150 lines, a
fix of at most `MAX_HUNKS` hunks, both versions Python 3) whose task has cases, and writes each
as a bench task in the `ws/` layout of bench/effect/corpus.py: `ws/prog.py` (the faulty
version), `ws/test_prog.py` (runs prog.py on each case with a time-out and compares its output
token by token, as AtCoder's judge does), `ws/cases/` (the few cases the test uses: the smallest
ones and the smallest one the faulty version fails, found by running it), `reference.py` (the
accepted version) and `task.json`. Whether the accepted version passes those cases is the
bench's soundness check (corpus.check_task), not this module's.
"""

from __future__ import annotations

import difflib
import json
import random
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.effect.corpus import PROGRAM, TEST, WORKSPACE

SEED = 26  # the number: any fixed seed makes the selection repeatable
COUNT = 60
MIN_LINES, MAX_LINES = 20, 150
MAX_HUNKS = 2  # "one-hunk-ish": a fix in one or two places
SMALLEST_CASES = 4  # besides the failing one: what a user's test of a stdin program holds
MAX_CASE_BYTES = 200_000  # an input larger than this stays out of the test
CASES_TRIED = 40  # cases run on the faulty version, smallest first, to find a failing one
#: Per case, in the test and while finding a failing case (AtCoder's limit is 2 s, on PyPy).
CASE_TIMEOUT = 10.0
CASES = "cases"

TEST_SOURCE = f'''"""AtCoder's cases for prog.py: each case's input on stdin, its output
compared token by token with the expected one (how AtCoder judges), within {CASE_TIMEOUT:.0f} s."""

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
CASES = sorted(p.name[: -len(".in")] for p in (HERE / "{CASES}").glob("*.in"))


@pytest.mark.parametrize("case", CASES)
def test_case(case: str) -> None:
    given = (HERE / "{CASES}" / f"{{case}}.in").read_text()
    expected = (HERE / "{CASES}" / f"{{case}}.out").read_text()
    done = subprocess.run(
        [sys.executable, str(HERE / "{PROGRAM}")],
        input=given,
        capture_output=True,
        text=True,
        timeout={CASE_TIMEOUT},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == expected.split()
'''


class DatasetError(ValueError):
    """The directory is not a ConDefects checkout with its cases."""


@dataclass(frozen=True)
class Submission:
    task: str  # AtCoder's task, e.g. abc221_f
    ident: str  # the submission's number
    directory: Path  # Code/<task>/Python/<ident>

    @property
    def faulty(self) -> str:
        return (self.directory / "faultyVersion.py").read_text(encoding="utf-8", errors="replace")

    @property
    def correct(self) -> str:
        return (self.directory / "correctVersion.py").read_text(encoding="utf-8", errors="replace")

    @property
    def fault_line(self) -> str:
        location = self.directory / "faultLocation.txt"
        return location.read_text(encoding="utf-8").strip() if location.is_file() else "?"


@dataclass(frozen=True)
class Case:
    name: str
    given: Path
    expected: Path


@dataclass(frozen=True)
class Built:
    """What `build` wrote, and why the others it looked at were left out."""

    root: Path
    tasks: tuple[str, ...]
    skipped: dict[str, str]  # submission -> reason


def submissions(dataset: Path) -> list[Submission]:
    code = dataset / "Code"
    if not code.is_dir():
        raise DatasetError(f"{dataset} has no Code/: not a ConDefects checkout")
    return [
        Submission(d.parent.parent.name, d.name, d)
        for d in sorted(code.glob("*/Python/*"))
        if (d / "faultyVersion.py").is_file() and (d / "correctVersion.py").is_file()
    ]


def cases(dataset: Path, task: str) -> list[Case]:
    """The task's cases, smallest input first (Test/<task>/in and out, as Tool/RunTest.py)."""
    given = dataset / "Test" / task / "in"
    if not given.is_dir():
        return []
    found = [
        Case(p.name, p, given.parent / "out" / p.name)
        for p in given.iterdir()
        if p.is_file() and (given.parent / "out" / p.name).is_file()
    ]
    return sorted(found, key=lambda c: (c.given.stat().st_size, c.name))


def hunks(before: str, after: str) -> int:
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), n=0, lineterm="")
    return sum(1 for line in diff if line.startswith("@@"))


def why_not(submission: Submission) -> str | None:
    """Why the submission is not a task, or None if its text qualifies."""
    faulty, correct = submission.faulty, submission.correct
    lines = len(faulty.splitlines())
    if not MIN_LINES <= lines <= MAX_LINES:
        return f"{lines} lines"
    changed = hunks(faulty, correct)
    if not 1 <= changed <= MAX_HUNKS:
        return f"{changed} hunks"
    for text in (faulty, correct):
        try:
            with warnings.catch_warnings():  # e.g. "invalid decimal literal": noise, not a verdict
                warnings.simplefilter("ignore", SyntaxWarning)
                compile(text, PROGRAM, "exec")
        except (SyntaxError, ValueError):
            return "not Python 3"
    return None


def _fails(program: Path, case: Case) -> bool:
    try:
        done = subprocess.run(
            [sys.executable, str(program)],
            stdin=case.given.open("rb"),
            capture_output=True,
            timeout=CASE_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return True
    expected = case.expected.read_bytes().split()
    return done.returncode != 0 or done.stdout.split() != expected


def chosen_cases(program: Path, found: list[Case]) -> list[Case] | None:
    """The smallest cases and the smallest one `program` fails; None if it fails none tried."""
    small = [c for c in found if c.given.stat().st_size <= MAX_CASE_BYTES]
    failing = next((c for c in small[:CASES_TRIED] if _fails(program, c)), None)
    if failing is None:
        return None
    head = small[:SMALLEST_CASES]
    return head if failing in head else [*head, failing]


def write_task(submission: Submission, chosen: list[Case], destination: Path) -> None:
    workspace = destination / WORKSPACE
    (workspace / CASES).mkdir(parents=True)
    (workspace / PROGRAM).write_text(submission.faulty, encoding="utf-8")
    (workspace / TEST).write_text(TEST_SOURCE, encoding="utf-8")
    for case in chosen:
        stem = Path(case.name).stem
        shutil.copyfile(case.given, workspace / CASES / f"{stem}.in")
        shutil.copyfile(case.expected, workspace / CASES / f"{stem}.out")
    (destination / "reference.py").write_text(submission.correct, encoding="utf-8")
    meta = {
        "kind": "real",
        "bug": f"ConDefects {submission.task}/{submission.ident}, "
        f"fault at line {submission.fault_line}",
        "program": PROGRAM,
        "test": TEST,
        "target": PROGRAM,
    }
    (destination / "task.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def _shuffled(dataset: Path, seed: int) -> Iterator[Submission]:
    every = submissions(dataset)
    random.Random(seed).shuffle(every)
    return iter(every)


def build(dataset: Path, root: Path, count: int = COUNT, seed: int = SEED) -> Built:
    """Write up to `count` tasks from the checkout `dataset` into `root` (one per AtCoder task,
    in the seeded order), and return their names and why the others were skipped."""
    if not (dataset / "Test").is_dir():
        raise DatasetError(
            f"{dataset} has no Test/: unpack ConDefects' Test.zip there (see docs/performance.md)"
        )
    root.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    skipped: dict[str, str] = {}
    used: set[str] = set()
    for submission in _shuffled(dataset, seed):
        if len(written) >= count:
            break
        reason = _skip(submission, used, dataset)
        faulty = submission.directory / "faultyVersion.py"
        chosen = None if reason else chosen_cases(faulty, cases(dataset, submission.task))
        if chosen is None:
            skipped[f"{submission.task}/{submission.ident}"] = reason or "fails no case tried"
            continue
        name = f"{len(written) + 1:02d}_{submission.task}_{submission.ident}"
        write_task(submission, chosen, root / name)
        written.append(name)
        used.add(submission.task)
    return Built(root, tuple(written), skipped)


def _skip(submission: Submission, used: set[str], dataset: Path) -> str | None:
    if submission.task in used:
        return "its AtCoder task already has one"
    if not (dataset / "Test" / submission.task / "in").is_dir():
        return "no cases"
    return why_not(submission)
