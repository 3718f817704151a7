"""Numbers that used to be asserted by unit tests, measured here instead (issue 25, item 10).

A unit test's outcome must not depend on the machine's speed (CI is a busy 2-core machine;
`tests/loop` once failed 1 in 260 runs at load 7), so these print what the tests only bound
loosely or not at all:

- text-call parsing: the seconds for 1,000,000 characters of calls, and the ratio to a tenth
  of that text (linear is about 10, quadratic about 100);
- an ordinary `search`: its wall time, the child process's start-up included, against the
  default deadline.

    .venv/bin/python -m bench.timed_checks
"""

from __future__ import annotations

import asyncio
import gc
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rune_lsp.loop.text_calls import parse_text_turn

from rune_lsp.tools.documents import DiskDocuments
from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.sandbox import Sandbox
from rune_lsp.tools.schemas import SearchArgs
from rune_lsp.tools.search import SEARCH_TIMEOUT

TOOL_NAMES = frozenset({"read_file", "list_dir", "search", "edit_file", "write_file"})
CALLS = {
    "tagged": '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>\n',
    "bare": '{"name": "read_file", "arguments": {"path": "a.py"}} ',
}
REPEATS = 5


def best_seconds(work: Callable[[], object], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        gc.collect()
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def parse_scaling() -> None:
    for name, call in CALLS.items():
        count = 1_000_000 // len(call)
        whole = best_seconds(lambda c=call, n=count: parse_text_turn(c * n, TOOL_NAMES))
        tenth = best_seconds(lambda c=call, n=count: parse_text_turn(c * (n // 10), TOOL_NAMES))
        print(
            f"text calls, {name}: 1,000,000 chars {whole * 1000:.0f} ms, a tenth "
            f"{tenth * 1000:.1f} ms, ratio {whole / tenth:.1f} (linear ~10, quadratic ~100)"
        )


def search_overhead() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "a.py").write_text("needle\n", encoding="utf-8")
        tools = WorkspaceTools(root, Sandbox.for_workspace([root]), DiskDocuments())
        times = []
        for _ in range(REPEATS):
            started = time.perf_counter()
            asyncio.run(tools.execute("search", SearchArgs(pattern="needle")))
            times.append(time.perf_counter() - started)
    print(
        f"ordinary search: best {min(times) * 1000:.0f} ms, worst {max(times) * 1000:.0f} ms "
        f"(deadline {SEARCH_TIMEOUT:g} s)"
    )


def main() -> None:
    parse_scaling()
    search_overhead()


if __name__ == "__main__":
    main()
