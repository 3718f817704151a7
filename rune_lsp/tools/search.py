"""`search`: a regex over the workspace's lines, `path:line: text`, sorted and bounded.

The files searched are the walk's (honouring .gitignore) plus open editor buffers, whose unsaved
text is what gets searched. ripgrep, when present, only narrows which disk files to read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

from rune_lsp.tools.context import ToolContext
from rune_lsp.tools.errors import AccessDenied, DocumentError, ToolError
from rune_lsp.tools.ignore import IgnoreRules, is_ignored, scope_of, walk_files
from rune_lsp.tools.ripgrep import ripgrep_candidates
from rune_lsp.tools.schemas import SearchArgs
from rune_lsp.tools.text import iter_lines, truncate

MAX_HITS = 100
MAX_HIT_CHARS = 200
#: Files handed to ripgrep at once; the scan stops early once enough hits are found.
_CHUNK = 512


@dataclass(frozen=True)
class Hit:
    shown: str
    line: int
    text: str

    def render(self) -> str:
        return f"{self.shown}:{self.line}: {truncate(self.text, MAX_HIT_CHARS)}"


@dataclass(frozen=True)
class _Glob:
    spec: GitIgnoreSpec
    negated: bool

    @classmethod
    def parse(cls, glob: str) -> _Glob:
        negated = glob.startswith("!")
        body = glob[1:] if negated else glob
        try:
            spec = GitIgnoreSpec.from_lines([body])
        except (ValueError, TypeError) as exc:
            raise ToolError(f"Invalid glob {glob!r}: {exc}") from exc
        return cls(spec, negated)

    def admits(self, relative: str) -> bool:
        return self.spec.match_file(relative) != self.negated


def search(ctx: ToolContext, args: SearchArgs, *, ripgrep: str | None) -> str:
    try:
        regex = re.compile(args.pattern)
    except re.error as exc:
        raise ToolError(f"Invalid regular expression {args.pattern!r}: {exc}.") from exc
    start = ctx.read_path(args.path or ".")
    glob = _Glob.parse(args.glob) if args.glob else None
    files = _candidate_files(ctx, start, glob)
    hits, more = _collect(ctx, files, regex, args.pattern, ripgrep)
    return _render(ctx, start, args, hits, more)


def _candidate_files(ctx: ToolContext, start: Path, glob: _Glob | None) -> list[Path]:
    """Every file to search, sorted by how it is shown (so by root-relative path)."""
    if ctx.documents.is_open(start) or start.is_file():
        found = {start}
        base = start.parent
    elif start.is_dir():
        base = start
        scope = scope_of(start, ctx.ignore_base(start))
        found = set(walk_files(start, scope))
        found.update(_open_buffers_under(ctx, start, scope.rules))
    else:
        raise ToolError(ctx.not_found(start))
    if glob is not None:
        found = {p for p in found if glob.admits(p.relative_to(base).as_posix())}
    return sorted(found, key=ctx.show)


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


def _collect(
    ctx: ToolContext,
    files: Sequence[Path],
    regex: re.Pattern[str],
    pattern: str,
    ripgrep: str | None,
) -> tuple[list[Hit], bool]:
    """Hits in file order, at most MAX_HITS; the flag says whether more exist."""
    hits: list[Hit] = []
    for offset in range(0, len(files), _CHUNK):
        chunk = files[offset : offset + _CHUNK]
        for path in _worth_reading(ctx, chunk, pattern, ripgrep):
            for hit in _hits_in(ctx, path, regex):
                if len(hits) == MAX_HITS:
                    return hits, True
                hits.append(hit)
    return hits, False


def _worth_reading(
    ctx: ToolContext, chunk: Sequence[Path], pattern: str, ripgrep: str | None
) -> list[Path]:
    if ripgrep is None:
        return list(chunk)
    on_disk = [p for p in chunk if not ctx.documents.is_open(p)]
    maybe = ripgrep_candidates(ripgrep, pattern, on_disk) if on_disk else set()
    if maybe is None:
        return list(chunk)
    return [p for p in chunk if ctx.documents.is_open(p) or p in maybe]


def _hits_in(ctx: ToolContext, path: Path, regex: re.Pattern[str]) -> Iterator[Hit]:
    try:
        text = ctx.documents.read_text(path)
    except DocumentError:  # binary, too large or unreadable: not searchable text
        return
    if text is None:
        return
    shown = ctx.show(path)
    for number, line in enumerate(iter_lines(text), start=1):
        if regex.search(line):
            yield Hit(shown, number, line)


def _render(ctx: ToolContext, start: Path, args: SearchArgs, hits: list[Hit], more: bool) -> str:
    where = ctx.show(start)
    if args.glob:
        where += f" (files matching {args.glob!r})"
    if not hits:
        return f"No matches for {args.pattern!r} in {where}."
    lines: list[str] = []
    used = 0
    budget = ctx.output_cap - 200
    for hit in hits:
        row = hit.render()
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
    return "\n".join(lines)
