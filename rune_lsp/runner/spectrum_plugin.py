"""A pytest plugin that records which workspace functions each test ran: loaded into the
user's own pytest, never imported by rune-lsp (runner/spectrum.py copies this file alone into
a temporary folder, puts that folder on `PYTHONPATH` and adds `-p rune_lsp_spectrum`).

It runs in the user's interpreter, so it uses only the standard library and pytest, and
works from Python 3.8: `sys.monitoring` (3.12, PEP 669) where it is free, with each function
reported once per test and then switched off, else `sys.setprofile` (and
`threading.setprofile`, for the threads a test starts). It prints nothing and changes no
outcome; when the session ends, each process that ran tests (one, or each pytest-xdist
worker) writes its own JSON file into the folder `RUNE_LSP_SPECTRUM_OUT` names:
`{"functions": [[path relative to the root, first line], ...], "tests": {node id:
{"outcome": "failed" | "passed" | "skipped", "ran": [index into functions, ...]}}}`, each
test's functions in the order they first ran. "skipped" is also an xfail or an xpass: a test
whose verdict says nothing about the code.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Generator
from types import CodeType, FrameType
from typing import Any

import pytest

ROOT_VARIABLE = "RUNE_LSP_SPECTRUM_ROOT"
OUT_VARIABLE = "RUNE_LSP_SPECTRUM_OUT"
#: Functions recorded per test, and in all, at most: the file stays small on a test that runs
#: a library.
MAX_FUNCTIONS = 5_000
MAX_TABLE = 50_000
#: The `sys.monitoring` tool ids left free by the standard ones (debugger 0, coverage 1,
#: profiler 2, optimizer 5).
_FREE_TOOL_IDS = (3, 4)

#: pytest's reporting: what it calls (a value's `__repr__` for an assertion's explanation or a
#: traceback) runs only when a test fails, so it would rank first and says nothing about the
#: code. click's `Sentinel.__repr__` outranked the buggy `Context.lookup_default` and the run
#: moved to `_utils.py` (bench/effect release_multi 19_click, 6 December 2026).
_REPORTING = tuple(
    os.sep + os.path.join("_pytest", part) + os.sep for part in ("assertion", "_io", "_code")
)
#: Callers looked through for pytest's reporting, at most: it calls the value's code from near
#: (`saferepr` -> `__repr__`); a deeper call is taken as the workspace's own.
MAX_CALLERS = 50

_given = os.environ.get(ROOT_VARIABLE) or os.getcwd()
#: The root as given and as resolved: a code object's file name is the path it was imported
#: by, which need not be the resolved one.
_roots = tuple({os.path.abspath(_given) + os.sep, os.path.realpath(_given) + os.sep})
#: Every function recorded, and its index in that table.
_table: dict[tuple[str, int], int] = {}
_tests: dict[str, dict[str, Any]] = {}
_ran: dict[int, None] = {}


def _for_a_report(frame: FrameType) -> bool:
    """Whether the function running in `frame` runs for pytest's reporting: called by it,
    directly or through other code (`pprint`, a `__repr__` calling a helper)."""
    caller = frame.f_back
    for _ in range(MAX_CALLERS):
        if caller is None:
            return False
        if any(part in caller.f_code.co_filename for part in _REPORTING):
            return True
        caller = caller.f_back
    return False


def _record(code: CodeType, frame: FrameType) -> bool:
    """Record that the test ran `code` (a workspace function; anything else is ignored). False
    when it was not recorded because it ran for pytest's reporting; a later call may be
    the workspace's own. The callers are looked at only for a function not yet recorded in
    this test: most calls are repeats, and `sys.setprofile` sees every one."""
    if code.co_name == "<module>" or len(_ran) >= MAX_FUNCTIONS:
        return True
    path = code.co_filename
    for root in _roots:
        if path.startswith(root):
            key = (path[len(root) :], code.co_firstlineno)
            index = _table.get(key)
            if index is not None and index in _ran:
                return True
            if _for_a_report(frame):
                return False
            if index is None and len(_table) < MAX_TABLE:
                index = _table.setdefault(key, len(_table))
            if index is not None:
                _ran.setdefault(index, None)
            return True
    return True


def _profile(frame: FrameType, event: str, arg: object) -> None:
    if event == "call":
        _record(frame.f_code, frame)


class _Monitor:
    """`sys.monitoring`'s PY_START under a free tool id; `tool` is None when none is free."""

    def __init__(self) -> None:
        self.tool: int | None = None
        # Typed as Any: the module exists from Python 3.12 only.
        self.monitoring: Any = getattr(sys, "monitoring", None)
        monitoring = self.monitoring
        if monitoring is None:
            return
        for tool in _FREE_TOOL_IDS:
            try:
                monitoring.use_tool_id(tool, "rune-lsp spectrum")
            except ValueError:  # taken by another tool
                continue
            monitoring.register_callback(tool, monitoring.events.PY_START, self._started)
            self.tool = tool
            return

    def _started(self, code: CodeType, offset: int) -> object:
        # The frame below this callback's is the function's that started.
        if not _record(code, sys._getframe(1)):
            return None  # kept armed: a call from workspace code may follow
        return self.monitoring.DISABLE  # once per test is enough: `start` re-arms it

    def start(self) -> None:
        if self.tool is None:
            threading.setprofile(_profile)
            sys.setprofile(_profile)
            return
        self.monitoring.restart_events()
        self.monitoring.set_events(self.tool, self.monitoring.events.PY_START)

    def stop(self) -> None:
        if self.tool is None:
            sys.setprofile(None)
            threading.setprofile(None)
            return
        self.monitoring.set_events(self.tool, 0)


_monitor = _Monitor()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    _ran.clear()
    _tests[item.nodeid] = {"outcome": "skipped", "ran": []}
    _monitor.start()
    try:
        yield
    finally:
        _monitor.stop()
        _tests[item.nodeid]["ran"] = list(_ran)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    test = _tests.get(report.nodeid)
    if test is None:
        return
    if report.failed:  # in any phase; a strict xpass too
        test["outcome"] = "failed"
    elif report.when == "call" and report.passed and not hasattr(report, "wasxfail"):
        test["outcome"] = "passed"  # a failed setup has no call; a teardown's comes after


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = os.environ.get(OUT_VARIABLE)
    if not folder or not _tests:  # pytest-xdist's controller runs no test
        return
    out = os.path.join(folder, os.environ.get("PYTEST_XDIST_WORKER", "main") + ".json")
    partial = f"{out}.part"
    with open(partial, "w", encoding="utf-8") as stream:
        json.dump({"functions": [list(key) for key in _table], "tests": _tests}, stream)
    os.replace(partial, out)
