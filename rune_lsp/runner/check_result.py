"""Whether a check's result says something about the code, or only that the check cannot run.

A check that cannot run (its command is not found, pytest is given a path that does not exist,
it collects no test) fails whatever the code says: fed to the model as a failing test, the
model "fixes" code that has no bug (issue 26). Such a first check is a configuration error for
the user, shown with its output before any model turn is spent. A check cut by the time-out is
a real failure (a test that loops forever) and stays one. The one classification is here.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from rune_lsp.store.receipt import CheckRecord
from rune_lsp.text_clip import clip, tail_lines

#: What the user is shown of the check's output: its last lines, bounded.
SHOWN_LINES = 15
SHOWN_CHARS = 1_500

#: The shell's own exit codes for a command it could not run (POSIX `sh`, bash).
_NOT_FOUND = 127
_NOT_EXECUTABLE = 126
#: pytest's exit codes (https://docs.pytest.org/en/stable/reference/exit-codes.html).
_PYTEST_USAGE = 4
_PYTEST_NO_TESTS = 5
#: `python -m unittest` that found nothing: "Ran 0 tests" (3.12+ also prints NO TESTS RAN and
#: exits 5; 3.11 exits 0 after "OK", which verifies nothing either).
_UNITTEST_NONE = re.compile(r"^Ran 0 tests in ", re.MULTILINE)
_NO_MODULE = re.compile(r"No module named '?([\w.]+)'?")


@dataclass(frozen=True)
class CheckCannotRun:
    """A check whose result is about its configuration, not the code: what it said and why."""

    command: str
    reason: str  # e.g. "pytest found no file or directory to run (exit 4)"
    output: str  # the end of its output, bounded

    @property
    def message(self) -> str:
        """The run's error: the command, why it cannot run, and the end of what it printed."""
        said = f":\n{self.output}" if self.output else ""
        return (
            f"the check `{self.command}` cannot run: {self.reason}. Fix the check command "
            f"(checkCommand, --check-command) and start the run again{said}"
        )


class CheckCannotRunError(Exception):
    """Raised before the first model turn when the check cannot run; the run ends `failed`."""

    def __init__(self, problem: CheckCannotRun, record: CheckRecord | None = None) -> None:
        super().__init__(problem.message)
        self.problem = problem
        self.record = record  # the check as it ran, for the receipt (None: it never started)


def cannot_run(record: CheckRecord) -> CheckCannotRun | None:
    """Why the check `record` describes cannot run, or None when its result is about the code
    (passed, failed, or timed out)."""
    if record.timed_out:
        return None
    output = "\n".join(p for p in (record.stdout_tail, record.stderr_tail) if p.strip())
    reason = _reason(record.command, record.exit_code, output)
    if reason is None:
        return None
    return CheckCannotRun(record.command, reason, _shown(output))


def could_not_start(command: str, error: OSError) -> CheckCannotRun:
    """The check's process could not be started at all (its folder is gone, no shell)."""
    return CheckCannotRun(command, f"it could not be started ({error})", "")


def _reason(command: str, exit_code: int | None, output: str) -> str | None:
    if exit_code == _NOT_FOUND:
        return "its command was not found (exit 127)"
    if exit_code == _NOT_EXECUTABLE:
        return "its command cannot be executed (exit 126)"
    module = _missing_runner(command, output)
    if module is not None and exit_code not in (0, None):
        return f"the module {module} it runs is not installed (exit {exit_code})"
    if _runs_pytest(command, output):
        if exit_code == _PYTEST_USAGE:
            return "pytest was called wrongly or found no file or directory to run (exit 4)"
        if exit_code == _PYTEST_NO_TESTS:
            return "pytest collected no tests (exit 5)"
    if _UNITTEST_NONE.search(output):
        return f"unittest ran no tests (exit {exit_code})"
    return None


def _runs_pytest(command: str, output: str) -> bool:
    """pytest's exit codes 4 and 5 mean what they mean only for pytest."""
    return "pytest" in _words(command) or "no tests ran in" in output


def _missing_runner(command: str, output: str) -> str | None:
    """`python -m MODULE` whose MODULE is not installed: the interpreter's own complaint."""
    words = _words(command)
    runners = {words[i + 1] for i, word in enumerate(words[:-1]) if word == "-m"}
    for found in _NO_MODULE.finditer(output):
        if found.group(1) in runners:
            return found.group(1)
    return None


def _words(command: str) -> list[str]:
    try:
        words = shlex.split(command)
    except ValueError:  # an unbalanced quote: the shell said so itself
        words = command.split()
    return [word.rsplit("/", 1)[-1] for word in words]


def _shown(output: str) -> str:
    return clip(tail_lines(output.strip("\n"), SHOWN_LINES), SHOWN_CHARS, keep="tail")


# pytest's summary line, "2 failed, 3 passed, 1 error in 0.12s" (between "=" rules without
# -q; "in 0.12 seconds" before pytest 5). A summary line only: ruff's "Found 1 error." and
# mypy's "Found 3 errors in 1 file" count no tests.
# A category may be two words: pytest 9's "-q" adds "3 subtests passed".
_TALLIES = r"\d+ [a-z]+(?: [a-z]+)?(?:, \d+ [a-z]+(?: [a-z]+)?)*"
_TOOK = r" in \d+(?:\.\d+)?\s?(?:s|seconds)\b"
_PYTEST_SUMMARY = re.compile(rf"^=*\s*({_TALLIES}){_TOOK}.*$")
_PYTEST_COUNTS = re.compile(r"(?:^|, )(\d+) (failed|errors?)\b")
# "!!! Interrupted: 1 error during collection !!!": a module that does not import.
_COLLECTION_ERRORS = re.compile(r"Interrupted: \d+ errors? during collection")
# unittest's: "FAILED (failures=2, errors=1)"; not its "expected failures=2".
_UNITTEST_SUMMARY = re.compile(r"^FAILED \((.*)\)$")
_UNITTEST_COUNTS = re.compile(r"(?:^|, )(failures|errors)=(\d+)")


# What changes from one run of the same check on the same code to the next: pytest's and
# unittest's durations ("3 failed in 0.51s", "Ran 3 tests in 0.001s") and objects' addresses in
# reprs ("<Cart object at 0x7f3a2c1b9d90>"). None of it tells the model anything, and a request
# that differs by them differs from every earlier one: the server's prompt cache is lost, and
# the bench's runs at a fixed seed part at the first check (docs/performance.md "Rerun it").
_DURATION = re.compile(
    rf"^(?P<head>=*\s*{_TALLIES}){_TOOK}(?: \(\d+:\d\d:\d\d\))?|^(?P<ran>Ran \d+ tests?){_TOOK}",
    re.MULTILINE,
)
_ADDRESS = re.compile(r"\b0x[0-9a-f]{8,16}\b")


def steady(output: str) -> str:
    """The check's output without what differs between two runs of it on the same code."""
    output = _DURATION.sub(lambda m: m.group("head") or m.group("ran"), output)
    return _ADDRESS.sub("0x…", output)


def count_failures(output: str, exit_code: int | None) -> int | None:
    """How many tests a check's output says failed: 0 for exit 0, else the sum of pytest's
    `N failed` and `N error(s)` (or unittest's `failures=N`, `errors=N`) in its last summary
    line; None when the output holds no test runner's summary (a linter, a crash), when the
    tests could not be collected, or when its summary counts no failing test (a coverage floor
    failed the run: no test did)."""
    if exit_code == 0:
        return 0
    if _COLLECTION_ERRORS.search(output):
        return None  # the tests never ran: their errors say nothing of how many would fail
    for line in reversed(output.splitlines()):
        line = line.strip()  # colours are gone already (tools/run_command.py)
        if pytest := _PYTEST_SUMMARY.match(line):
            counted = sum(int(n) for n, _ in _PYTEST_COUNTS.findall(pytest.group(1)))
        elif unittest := _UNITTEST_SUMMARY.match(line):
            counted = sum(int(n) for _, n in _UNITTEST_COUNTS.findall(unittest.group(1)))
        else:
            continue
        return counted or None
    return None
