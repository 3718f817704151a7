"""The code-block reader's one entry point: an answer's fenced blocks as edits of files.

`read_code` is what the rest of rune-lsp calls; how a block is placed lives behind it
(`blocks.py` today). `files` holds the current text of every file the caller could read among
the target and `named_paths(answer, target)`; a reading names the file of each edit, so a block
written for another file goes through that file's own sandbox check and review.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rune_lsp.answers.code.blocks import read_blocks


@dataclass(frozen=True)
class FileEdit:
    """An `edit_file` proposal: `old_text` occurs exactly once in `path`'s current text."""

    path: str
    old_text: str
    new_text: str


@dataclass(frozen=True)
class CodeReading:
    """What an answer's code blocks propose: edits, a reason for none, or nothing at all."""

    edits: tuple[FileEdit, ...] = ()
    refusal: str | None = None  # told to the model: why no block was taken
    unchanged: bool = False  # every block placed, and each is the code as it is now


def named_paths(answer: str, target: str) -> tuple[str, ...]:
    """Files other than `target` that the answer's blocks say they are code of, in order.
    None yet: every block is read as code of the target."""
    del answer, target
    return ()


def read_code(answer: str, files: Mapping[str, str], target: str) -> CodeReading:
    """The edits `answer`'s code blocks propose; `files[target]` is the target's current text."""
    reading = read_blocks(answer, files[target], target)
    edits: tuple[FileEdit, ...] = ()
    if reading.edit is not None:
        edits = (FileEdit(target, reading.edit.old_text, reading.edit.new_text),)
    return CodeReading(edits=edits, refusal=reading.refusal, unchanged=reading.unchanged)
