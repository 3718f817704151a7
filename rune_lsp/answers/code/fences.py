"""Fenced code blocks in a model's answer, and which file's language a block can be."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

_PYTHON = frozenset({"python", "py", "python3", "py3"})
#: Fence tags that name a file's language, by suffix. Untagged blocks fit any file.
LANGUAGE_TAGS: dict[str, frozenset[str]] = {
    ".py": _PYTHON,
    ".pyi": _PYTHON,
    ".js": frozenset({"javascript", "js", "jsx", "node"}),
    ".ts": frozenset({"typescript", "ts", "tsx"}),
    ".rs": frozenset({"rust", "rs"}),
    ".go": frozenset({"go", "golang"}),
    ".c": frozenset({"c"}),
    ".h": frozenset({"c", "cpp", "c++", "h"}),
    ".cpp": frozenset({"cpp", "c++", "cc"}),
    ".java": frozenset({"java"}),
    ".rb": frozenset({"ruby", "rb"}),
    ".sh": frozenset({"sh", "bash", "shell", "zsh"}),
}
_OPEN = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$")


@dataclass(frozen=True)
class Fence:
    tag: str  # the info string's first word, lower case ("" when untagged)
    lines: tuple[str, ...]


def fenced_blocks(text: str) -> list[Fence]:
    """Every closed fenced block; an unclosed one (a cut stream) is not a proposal."""
    found: list[Fence] = []
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        opened = _OPEN.match(lines[index].rstrip())
        index += 1
        if opened is None:
            continue
        fence, tag = opened.group(1), opened.group(2).lower()
        body: list[str] = []
        while index < len(lines):
            line = lines[index].rstrip()
            index += 1
            stripped = line.strip()
            if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                found.append(Fence(tag, tuple(body)))
                break
            body.append(line)
    return found


def speaks(tag: str, path: str) -> bool:
    """Whether a block tagged `tag` can be code of `path`."""
    if not tag:
        return True
    pure = PurePath(path)
    if tag == pure.name.lower():  # ```app.py
        return True
    return tag in LANGUAGE_TAGS.get(pure.suffix.lower(), frozenset({pure.suffix.lstrip(".")}))
