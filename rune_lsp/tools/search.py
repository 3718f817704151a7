"""`search`: a regex over the workspace's lines, `path:line: text`, sorted and bounded.

The files searched are the walk's (honouring .gitignore) plus open editor buffers, whose unsaved
text is what gets searched. ripgrep, when present, only narrows which disk files to read.

The model's pattern and glob are only ever evaluated in `search_worker`'s child process, which
is killed after `SEARCH_TIMEOUT` seconds: Python's regex engine backtracks without bound and
holds the GIL while it does, so in this process a bad pattern would freeze the whole server.
"""

from __future__ import annotations

import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

from rune_lsp.tools.context import ToolContext
from rune_lsp.tools.errors import AccessDenied, ToolError
from rune_lsp.tools.ignore import IgnoreRules, is_ignored, scope_of, walk_files
from rune_lsp.tools.schemas import SearchArgs
from rune_lsp.tools.search_worker import Candidate, Glob, Job, Report, WorkerError, run_job

MAX_HITS = 100
MAX_HIT_CHARS = 200
#: Seconds one search may take, start-up of its child process included (about 0.05 s).
SEARCH_TIMEOUT = 10.0
#: Files named in the note on what could not be searched; the rest are counted.
MAX_SKIPPED_SHOWN = 5


def search(
    ctx: ToolContext,
    args: SearchArgs,
    *,
    ripgrep: str | None,
    timeout: float = SEARCH_TIMEOUT,
    stop: threading.Event | None = None,
) -> str:
    """The matches as the model reads them; `stop` ends the child early (a cancelled run)."""
    try:
        re.compile(args.pattern)  # compiling is bounded; only matching can run away
    except re.error as exc:
        raise ToolError(f"Invalid regular expression {args.pattern!r}: {exc}.") from exc
    if args.glob:
        Glob.parse(args.glob)
    start = ctx.read_path(args.path or ".")
    named, candidates = _candidate_files(ctx, start)
    job = Job(
        pattern=args.pattern,
        glob=args.glob,
        candidates=tuple(candidates),
        ripgrep=ripgrep,
        named=named,
        max_hits=MAX_HITS,
        hit_chars=MAX_HIT_CHARS,
    )
    report = _run(job, timeout, stop)
    if named and report.skipped:
        raise ToolError(f"Cannot search {ctx.show(start)}: {report.skipped[0].reason}.")
    return _render(ctx, start, args, report)


def _run(job: Job, timeout: float, stop: threading.Event | None) -> Report:
    try:
        return run_job(job, timeout, stop)
    except subprocess.TimeoutExpired:
        raise ToolError(
            f"search timed out after {timeout:g} s: matching {job.pattern!r}"
            + (f" over files matching {job.glob!r}" if job.glob else "")
            + " took too long. Simplify the pattern (no nested repetition such as (a+)+ or "
            "many * in a row) or narrow path or glob."
        ) from None
    except (OSError, WorkerError) as exc:
        raise ToolError(f"search could not run: {exc}.") from exc


def _candidate_files(ctx: ToolContext, start: Path) -> tuple[bool, list[Candidate]]:
    """Whether `start` is one named file, and every file to search sorted by how it is shown
    (so by root-relative path), each with its open buffer's text, if any."""
    if ctx.documents.is_open(start) or start.is_file():
        named = True
        found = {start}
        base = start.parent
    elif start.is_dir():
        named = False
        base = start
        scope = scope_of(start, ctx.ignore_base(start))
        found = set(walk_files(start, scope))
        found.update(_open_buffers_under(ctx, start, scope.rules))
    else:
        raise ToolError(ctx.not_found(start))
    candidates = [
        Candidate(
            path=str(path),
            shown=ctx.show(path),
            relative=path.relative_to(base).as_posix(),
            buffer=ctx.read_document(path) if ctx.documents.is_open(path) else None,
        )
        for path in found
    ]
    return named, sorted(candidates, key=lambda candidate: candidate.shown)


def _open_buffers_under(ctx: ToolContext, start: Path, rules: IgnoreRules) -> Iterator[Path]:
    """Open documents the walk may not see (unsaved new files), under the same rules."""
    for path in ctx.documents.open_paths():
        if not path.is_relative_to(start):
            continue
        if is_ignored(path, start, rules):
            continue
        try:
            ctx.read_path(str(path))
        except AccessDenied:
            continue
        yield path


def _render(ctx: ToolContext, start: Path, args: SearchArgs, report: Report) -> str:
    where = ctx.show(start)
    if args.glob:
        where += f" (files matching {args.glob!r})"
    skipped = _skipped_note(report)
    if not report.rows:
        return "\n".join([f"No matches for {args.pattern!r} in {where}.", *skipped])
    lines: list[str] = []
    used = 0
    budget = ctx.output_cap - 200 - sum(len(line) + 1 for line in skipped)
    more = report.more
    for row in report.rows:
        if lines and used + len(row) + 1 > budget:
            more = True
            break
        lines.append(row)
        used += len(row) + 1
    if more:
        lines.append(
            f"[showing the first {len(lines)} matches; more exist. "
            "Narrow the pattern, path or glob to see the rest]"
        )
    return "\n".join([*lines, *skipped])


def _skipped_note(report: Report) -> list[str]:
    """What could not be searched, so "No matches" is never said of a file nobody read."""
    if not report.skipped:
        return []
    count = len(report.skipped)
    lines = [
        f"[not searched: {count} file{'s' if count != 1 else ''} that may hold a match "
        "but cannot be read as text]"
    ]
    lines.extend(f"- {item.shown}: {item.reason}" for item in report.skipped[:MAX_SKIPPED_SHOWN])
    if count > MAX_SKIPPED_SHOWN:
        lines.append(f"- and {count - MAX_SKIPPED_SHOWN} more")
    return lines
