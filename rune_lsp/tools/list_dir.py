"""`list_dir`: the entries of one directory, as git would show them."""

from __future__ import annotations

import os

from rune_lsp.tools.context import ToolContext
from rune_lsp.tools.errors import ToolError
from rune_lsp.tools.ignore import scope_of
from rune_lsp.tools.schemas import ListDirArgs

MAX_ENTRIES = 500


def list_dir(ctx: ToolContext, args: ListDirArgs) -> str:
    path = ctx.read_path(args.path)
    shown = ctx.show(path)
    if not path.exists():
        raise ToolError(ctx.not_found(path))
    if not path.is_dir():
        raise ToolError(f"{shown} is a file, not a directory; use read_file to read it.")
    scope = scope_of(path, ctx.ignore_base(path))
    entries: list[str] = []
    hidden = 0
    try:
        with os.scandir(path) as found:
            for entry in found:
                is_dir = _is_dir(entry)
                if scope.rules.ignores(path / entry.name, is_dir=is_dir):
                    hidden += 1
                    continue
                entries.append(entry.name + "/" if is_dir else entry.name)
    except OSError as exc:
        raise ToolError(f"Cannot list {shown}: {exc.strerror or exc}.") from exc
    entries.sort()
    return _render(shown, entries, hidden=hidden, ignored=scope.ignored, budget=ctx.output_cap)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a broken or unreadable entry is listed as a plain name
        return False


def _render(shown: str, entries: list[str], *, hidden: int, ignored: bool, budget: int) -> str:
    heading = f"{shown}/" if shown != "." else "./"
    lines = [f"{heading} ({len(entries)} entries)" if entries else f"{heading} (empty)"]
    used = len(lines[0])
    listed = 0
    for name in entries[:MAX_ENTRIES]:
        if used + len(name) + 1 > budget - 200:
            break
        lines.append(name)
        used += len(name) + 1
        listed += 1
    if listed < len(entries):
        lines.append(
            f"[showing {listed} of {len(entries)} entries; list a subdirectory or use search "
            "with a glob to narrow down]"
        )
    if hidden:
        lines.append(f"[{hidden} not shown: .git and entries matched by .gitignore]")
    if ignored:
        lines.append("[this directory is itself ignored by a .gitignore]")
    return "\n".join(lines)
