"""The file a Python block is code of when the file it was read for defines none of its
definitions: the one other file the run showed the model that defines every one of them.

A run on a failing test shows the module under test and the files it uses beside it
(runner/context.py). Asked for "the whole function you change", Qwen2.5-Coder 1.5B wrote the
right fix of `words`, a function of the file shown beside the module, with no file line, or
labelled with the module's name (bench/effect corpus_multi 08_word_count, 2026-12-07: 3 of its
6 such answers were `text.split()`, the fix). Read as the module's code, each was refused as
"`def words` is not defined in report.py". Only the files the model was shown are looked at,
and only a unique one is taken: where no shown file or more than one defines them all, the
block stays the named file's, and is refused there as before. The block is then placed in its
file by the same tiers as any other (placing.py): exact, or refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath

from rune_lsp.answers.code.by_definition import parse_block
from rune_lsp.answers.code.python_source import Kind
from rune_lsp.answers.code.spans import FileText


def shown_owner(
    block: list[str], path: str, files: Mapping[str, str], shown: tuple[str, ...]
) -> str | None:
    """The file of `shown` (other than `path`) that `block` is code of, when `path` (the file
    it was read for; maybe not in `files`, unreadable) defines none of the block's top-level
    definitions and exactly that one file defines all of them; else None."""
    if not shown or not _python(path):
        return None
    parsed = parse_block(block)
    if parsed is None or not parsed.outline.definitions:
        return None
    wanted = {(unit.kind, unit.name) for unit in parsed.outline.definitions}
    current = files.get(path)
    if current is not None and _defined(current) & wanted:
        return None
    owners = [
        other
        for other in dict.fromkeys(shown)
        if other != path and _python(other) and other in files and wanted <= _defined(files[other])
    ]
    return owners[0] if len(owners) == 1 else None


def _python(path: str) -> bool:
    return PurePosixPath(path).suffix.lower() in (".py", ".pyi")


def _defined(text: str) -> set[tuple[Kind, str]]:
    """Every definition of a file, nested ones included (a method sent alone goes back into its
    class), by kind and name; nothing when the file does not parse."""
    outline = FileText.of(text).outline
    return set() if outline is None else set(outline.by_name)
