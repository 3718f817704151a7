"""Does the first request of a run on a failing test show the module with the bug? (issue 26)

    .venv/bin/python -m bench.effect.reach                          # the multi corpus
    .venv/bin/python -m bench.effect.reach --corpus release_multi   # built from PyPI sdists

For each task of the corpus, without a model: the task rune composes on the task's target (the
failing test), blind and once the first check ran, whether it shows the buggy module and the
lines the fix changes (`bug_lines_shown`), how many characters it has against the test alone,
and the check rune would offer, and the module the run moves to once the check failed. Nothing
here asserts: the numbers are the result.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import shutil
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.effect.corpus import (
    BUILT_CORPORA,
    Task,
    failing_output,
    load_corpus,
    make_workspace,
)
from bench.effect.release_bugs import build as build_release_bugs
from rune_lsp.loop.task import FixTarget, RelatedFile
from rune_lsp.runner.assembly import compose_task, with_check_output, workspace_tools
from rune_lsp.runner.context import related_files
from rune_lsp.runner.offered_check import offered_check
from rune_lsp.runner.spectrum import NO_SPECTRUM, record
from rune_lsp.settings import Settings
from rune_lsp.tools.documents import DiskDocuments


@dataclass(frozen=True)
class Reach:
    task: str
    test_only_chars: int  # the task as skel composed it: the test file alone
    blind_chars: int
    checked_chars: int  # recomposed with the failing check's traceback (its report not counted)
    shown_blind: bool  # the buggy module is among the files shown
    shown_checked: bool
    #: Every line the fix changes lies in the excerpt of the module shown with the check.
    lines_checked: bool
    #: The file the run moves to once the check failed (runner/context.module_under_test),
    #: relative; None when it stays on the test.
    moved: str | None
    offered: str | None
    #: The recording run (runner/spectrum.py): whether it saw a failing test, and its seconds.
    recorded: bool = False
    recording_seconds: float = 0.0


def reach(task: Task, *, spectrum: bool = True) -> Reach:
    with tempfile.TemporaryDirectory(prefix="rune-reach-") as scratch:
        root = make_workspace(task, Path(scratch) / "ws")
        document = root / task.target
        tools = workspace_tools(Settings(), document, [root], DiskDocuments())
        fix = compose_task(tools, FixTarget(path=document, instruction=task.instruction))
        output = failing_output(task)
        ran, started = NO_SPECTRUM, time.monotonic()
        if spectrum:  # as the run records it, in its scratch copy: here the task's own copy
            ran = asyncio.run(record(task.test_command, root, Settings().command_timeout))
        recording_seconds = time.monotonic() - started
        recomposed = with_check_output(tools, document, fix, output, failed=True, spectrum=ran)
        checked = recomposed.task
        related = related_files(tools, document, fix.text, output, ran)
        changed = changed_lines(task.buggy, task.source("reference.py"))
        offer = offered_check(Settings(), root, document)
        return Reach(
            task=task.name,
            test_only_chars=len(fix.model_copy(update={"related": ()}).prompt()),
            blind_chars=len(fix.prompt()),
            checked_chars=len(checked),
            shown_blind=any(r.path == task.program for r in fix.related),
            shown_checked=f"Other file: {task.program} " in checked
            or checked.startswith(f"Task: {task.instruction}\nFile: {task.program}\n"),
            lines_checked=bug_lines_shown(related, task.program, changed),
            moved=tools.show(recomposed.target) if recomposed.target is not None else None,
            offered=offer.command if offer is not None else None,
            recorded=ran.failed > 0,
            recording_seconds=recording_seconds,
        )


def changed_lines(buggy: str, fixed: str) -> frozenset[int]:
    """The 1-based lines of `buggy` the fix replaces or deletes; for a pure insertion, the line
    it goes after and the one before it (what must be in sight to write it)."""
    before, after = buggy.splitlines(), fixed.splitlines()
    lines: set[int] = set()
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            lines.update(range(i1 + 1, i2 + 1))
        elif tag == "insert":
            lines.update(n for n in (i1, i1 + 1) if 1 <= n <= len(before))
    return frozenset(lines)


def bug_lines_shown(related: Sequence[RelatedFile], program: str, changed: frozenset[int]) -> bool:
    """Whether the excerpts of `program` among `related` hold every line in `changed`."""
    shown: set[int] = set()
    for entry in related:
        if entry.path == program:
            shown.update(range(entry.first_line, entry.first_line + len(entry.lines)))
    return bool(changed) and changed <= shown


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=("multi", "release_multi"), default="multi")
    parser.add_argument(
        "--no-spectrum",
        action="store_true",
        help="leave out what the failing tests ran (runner/spectrum.py): the static reach alone",
    )
    args = parser.parse_args(argv)
    spectrum = not args.no_spectrum
    if args.corpus not in BUILT_CORPORA:
        _report(load_corpus(args.corpus), spectrum)
        return
    built = Path(tempfile.mkdtemp(prefix="rune-reach-"))
    try:
        build_release_bugs(built, args.corpus)
        _report(load_corpus(args.corpus, built), spectrum)
    finally:
        shutil.rmtree(built, ignore_errors=True)


def _report(tasks: Sequence[Task], spectrum: bool) -> None:
    rows = [reach(task, spectrum=spectrum) for task in tasks]
    for row in rows:
        print(
            f"{row.task}: module shown blind {row.shown_blind}, with check {row.shown_checked}"
            f" (the fix's lines {row.lines_checked}), moved to {row.moved}; "
            f"{row.test_only_chars} -> {row.blind_chars} / {row.checked_chars} chars; "
            f"offered: {row.offered}; recorded {row.recorded} in {row.recording_seconds:.1f} s"
        )
    seconds = sorted(r.recording_seconds for r in rows)
    pairs = list(zip(rows, tasks, strict=True))
    print(
        f"module shown: blind {sum(r.shown_blind for r in rows)}/{len(rows)}, "
        f"with check {sum(r.shown_checked for r in rows)}/{len(rows)}, the fix's lines with "
        f"check {sum(r.lines_checked for r in rows)}/{len(rows)}, moved to the buggy module "
        f"{sum(r.moved == t.program for r, t in pairs)}/{len(rows)} (elsewhere "
        f"{sum(r.moved not in (None, t.program) for r, t in pairs)}); median chars: test "
        f"only {statistics.median(r.test_only_chars for r in rows)}, blind "
        f"{statistics.median(r.blind_chars for r in rows)}, with check "
        f"{statistics.median(r.checked_chars for r in rows)}; offered "
        f"{sum(r.offered is not None for r in rows)}/{len(rows)}; recorded "
        f"{sum(r.recorded for r in rows)}/{len(rows)} in {statistics.median(seconds):.1f} s "
        f"median, {seconds[-1]:.1f} s max"
    )


if __name__ == "__main__":
    main()
