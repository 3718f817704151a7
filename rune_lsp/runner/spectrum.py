"""Which code the failing tests run that the passing ones do not: the check's pytest run again,
in the run's scratch copy, with a recorder (runner/spectrum_plugin.py), and its functions
ranked by how strongly running them goes with failing.

A static reader follows what a test calls by name and misses code reached only at run time:
Markdown's inline patterns behind `markdown.markdown()`, sqlparse's `grouping.py` three calls
below `sqlparse.parse`, methods on a fixture's object (docs/performance.md "What the first
request shows on a failing test"). Running the tests shows it. The ranking is Ochiai's, the
usual one of spectrum-based fault localisation (Abreu, Zoeteweij, van Gemund, "On the
accuracy of spectrum-based fault localization", TAIC PART 2007): a function run by every
failing test and by no passing one ranks first; ties go to the one the failing tests ran
first.

The user's check is not changed. This is a second run, only when the check failed and ran
pytest, in the scratch copy (never the user's files), with the check's test ids widened to
their files (the passing tests beside a failing one are what tell the functions apart), and
bounded by `TIMEOUT`; anything that goes wrong leaves the ranking empty, and the task shows
what the static reader found. Skipped, xfailed and xpassed tests say nothing about the code
and are left out of the ranking.
"""

from __future__ import annotations

import ast
import asyncio
import logging
import math
import os
import shlex
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import BaseModel

from rune_lsp.loop.task import is_test_path
from rune_lsp.python_parse import parse
from rune_lsp.runner import spectrum_plugin
from rune_lsp.runner.failing_tests import Definition, in_test_folder
from rune_lsp.runner.scratch import owned_directory, python_path
from rune_lsp.tools.run_command import run_shell

_log = logging.getLogger(__name__)

#: The name the recorder is loaded under (`-p`): one no user module is likely to have.
PLUGIN = "rune_lsp_spectrum"
#: Seconds the recording run may take (less when the check's own time-out is shorter): it
#: runs once, before the first model turn, and costs what pytest costs under a profiler.
TIMEOUT = 30.0
#: Characters that make the command the shell's when unquoted (an operator, a redirection)
#: or anywhere (an expansion): such a command is kept as the shell reads it, or not recorded.
_OPERATORS = "();<>|&"
_EXPANSIONS = "$`"
#: Options whose value is a test id that must stay as written.
_ID_OPTIONS = frozenset({"--deselect"})
#: Bytes of recording read at most, per process that wrote one.
MAX_BYTES = 8_000_000


class _TestRun(BaseModel):
    outcome: Literal["failed", "passed", "skipped"]
    ran: list[int]


class _Recording(BaseModel):
    """One process's file (runner/spectrum_plugin.py): its function table and tests."""

    functions: list[tuple[str, int]]
    tests: dict[str, _TestRun]


@dataclass(frozen=True)
class Suspect:
    """A function the failing tests ran: its file (relative, `/`-separated), the first line of
    its code (its first decorator's, or its `def`), its Ochiai score, and how many failing and
    passing tests ran it."""

    path: str
    line: int
    score: float
    failed: int
    passed: int


@dataclass(frozen=True)
class Spectrum:
    """What the recording run saw: how many tests failed and passed, and the ranking."""

    failed: int
    passed: int
    suspects: tuple[Suspect, ...]


NO_SPECTRUM = Spectrum(0, 0, ())


def recorded_words(check_command: str) -> list[str] | None:
    """The check command's words when a recording can run it: None when it does not run
    pytest, or is the shell's (an operator, an expansion) or cannot be read as words."""
    if any(char in check_command for char in _EXPANSIONS):
        return None
    try:
        lexer = shlex.shlex(check_command, posix=True, punctuation_chars=_OPERATORS)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return None
    if any(word and set(word) <= set(_OPERATORS) for word in words):
        return None  # `cd x && pytest`, `pytest | tee`: kept as the shell reads it, or not at all
    if not any(Path(word).name in ("pytest", "py.test") for word in words):
        return None
    return words


def recording_command(words: Sequence[str], recorder: str) -> str:
    """The check command (its `recorded_words`) as the recording runs it: its `path::test` ids
    widened to their files, the recorder (loaded from the folder `recorder`) added, the folder
    put first on a `PYTHONPATH=` the command sets itself."""
    widened: list[str] = []
    leading = True  # still in the `NAME=value` words before the command
    for index, word in enumerate(words):
        leading = leading and "=" in word and not word.startswith("-")
        if leading and word.startswith("PYTHONPATH="):
            word = f"PYTHONPATH={recorder}{os.pathsep}{word.removeprefix('PYTHONPATH=')}"
        elif _is_test_id(word) and (index == 0 or words[index - 1] not in _ID_OPTIONS):
            word = word.split("::", 1)[0]
            if word in widened or word in words:
                continue  # the file is run already
        widened.append(word)
    return shlex.join([*widened, "-p", PLUGIN])


def _is_test_id(word: str) -> bool:
    return not word.startswith("-") and word.split("::", 1)[0].endswith(".py") and "::" in word


async def record(
    check_command: str,
    root: Path,
    timeout: float,  # noqa: ASYNC109 - a deadline for the child process, as run_shell's
    parent: Path | None = None,
    import_paths: Sequence[str] = (),
) -> Spectrum:
    """The spectrum of the check's tests run in `root` (a scratch copy), the recorder put in
    a folder under `parent` (runner/scratch.py: a crashed process's is swept) and first on
    `PYTHONPATH`, `import_paths` after it: NO_SPECTRUM when the check runs no pytest, or the
    recording fails, times out or records no failing test."""
    words = recorded_words(check_command)
    if words is None:  # decided before any folder is made
        return NO_SPECTRUM
    try:
        folder = await asyncio.to_thread(owned_directory, parent)
    except OSError as exc:
        _log.info("no spectrum: %s", exc)
        return NO_SPECTRUM
    try:
        command = recording_command(words, str(folder))
        shutil.copyfile(spectrum_plugin.__file__, folder / f"{PLUGIN}.py")
        out = folder / "out"
        out.mkdir()
        env = {
            **python_path([str(folder), *import_paths]),
            spectrum_plugin.ROOT_VARIABLE: str(root),
            spectrum_plugin.OUT_VARIABLE: str(out),
        }
        await run_shell(command, cwd=root, timeout=min(timeout, TIMEOUT), env=env)
        runs = await asyncio.to_thread(_read, out)
    except OSError as exc:  # the recorder could not be put in place, or the shell not started
        _log.info("no spectrum: %s", exc)
        return NO_SPECTRUM
    finally:
        await asyncio.to_thread(shutil.rmtree, folder, True)
    return ranked(
        [
            (run.outcome == "failed", functions)
            for run, functions in runs
            if run.outcome != "skipped"
        ]
    )


def _read(out: Path) -> list[tuple[_TestRun, list[tuple[str, int]]]]:
    """Every test the processes recorded, with the functions it ran, in order."""
    runs: list[tuple[_TestRun, list[tuple[str, int]]]] = []
    for file in sorted(out.glob("*.json")):
        try:
            if file.stat().st_size > MAX_BYTES:
                continue
            recording = _Recording.model_validate_json(file.read_bytes())
        except (OSError, ValueError, RecursionError):  # pydantic's ValidationError included
            continue
        table = recording.functions
        for run in recording.tests.values():
            runs.append((run, [table[i] for i in run.ran if 0 <= i < len(table)]))
    return runs


def ranked(pairs: Sequence[tuple[bool, Sequence[tuple[str, int]]]]) -> Spectrum:
    """From each test's verdict (failed?) and the functions it ran, in order: every function
    a failing test ran, best suspect first (Ochiai, then the order the failing tests first
    ran them)."""
    failing = sum(1 for failed, _ in pairs if failed)
    if not failing:
        return NO_SPECTRUM
    failed: dict[tuple[str, int], int] = {}
    passed: dict[tuple[str, int], int] = {}
    for was_failing, functions in pairs:
        counts = failed if was_failing else passed
        for function in dict.fromkeys(functions):
            counts[function] = counts.get(function, 0) + 1
    suspects = [
        Suspect(
            path=path,
            line=line,
            score=ran / math.sqrt(failing * (ran + passed.get((path, line), 0))),
            failed=ran,
            passed=passed.get((path, line), 0),
        )
        for (path, line), ran in failed.items()
    ]
    suspects.sort(key=lambda suspect: -suspect.score)  # stable: first run first among ties
    return Spectrum(failing, len(pairs) - failing, tuple(suspects))


def suspect_definitions(
    spectrum: Spectrum,
    root: Path,
    read: Callable[[Path], str | None],
    most: int,
) -> list[Definition]:
    """The functions and methods of the best `most` suspects outside the tests (test files,
    test folders, `conftest.py`), in rank order, each once: a closure or a comprehension is
    shown as the function it is in. `read` gives a file's text under the tools' rules (None:
    not to be shown)."""
    units: dict[str, list[_Unit]] = {}
    found: list[Definition] = []
    seen: set[tuple[str, int]] = set()
    for suspect in spectrum.suspects:
        if len(found) == most:
            break
        if _is_test_code(suspect.path):
            continue
        if suspect.path not in units:
            units[suspect.path] = _units(read(root / suspect.path))
        unit = next((u for u in units[suspect.path] if u.first <= suspect.line <= u.last), None)
        if unit is None or (suspect.path, unit.first) in seen:
            continue
        seen.add((suspect.path, unit.first))
        why = f"{unit.name}, {_ran_by(suspect, spectrum)}"
        found.append(Definition(root / suspect.path, unit.name, unit.first, unit.last, why))
    return found


def _ran_by(suspect: Suspect, spectrum: Spectrum) -> str:
    if spectrum.failed == 1:
        failing = "run by the failing test"
    else:
        failing = f"run by {suspect.failed} of the {spectrum.failed} failing tests"
    if not suspect.passed:
        return f"{failing} and by no passing test"
    return f"{failing} and by {suspect.passed} of the {spectrum.passed} passing tests"


def _is_test_code(path: str) -> bool:
    relative = PurePosixPath(path)
    return is_test_path(path) or relative.name == "conftest.py" or in_test_folder(relative)


@dataclass(frozen=True)
class _Unit:
    """A top-level function or a method (of a class at any depth, not of a function)."""

    name: str
    first: int  # its first decorator's line, or its `def` line
    last: int


def _units(text: str | None) -> list[_Unit]:
    if not text:
        return []
    try:
        tree = parse(text)
    except (SyntaxError, ValueError):
        return []
    found: list[_Unit] = []
    scopes: list[tuple[str, ast.AST]] = [("", tree)]
    while scopes:
        prefix, scope = scopes.pop()
        for node in ast.iter_child_nodes(scope):
            if isinstance(node, ast.ClassDef):
                scopes.append((f"{prefix}{node.name}.", node))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                found.append(_Unit(f"{prefix}{node.name}", first, node.end_lineno or node.lineno))
            elif isinstance(node, ast.stmt | ast.excepthandler | ast.match_case):
                # `if`, `try`, `with`, `match`: a definition under one (a fallback, a
                # version's own) is still the module's or the class's
                scopes.append((prefix, node))
    return found
