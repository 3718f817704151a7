"""The editor snippets of docs/getting-started.md, exactly as the docs print them.

The editor tests run these snippets, changing only what must point at the test's own server
and model double, so a broken snippet in the docs fails a test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

GETTING_STARTED = Path(__file__).resolve().parents[2] / "docs" / "getting-started.md"

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
_FENCE = "```"


class SnippetChanged(AssertionError):
    """The docs no longer hold the snippet (or the part of it) a test substitutes."""


def fenced_block(heading: str, language: str, doc: Path = GETTING_STARTED) -> str:
    """The first ```language block in the section under `heading`, up to the next heading."""
    in_section = False
    in_fence = False
    block: list[str] | None = None
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith(_FENCE):
            if block is not None and in_fence:
                return "\n".join(block) + "\n"
            in_fence = not in_fence
            if in_section and in_fence and line[len(_FENCE) :].strip() == language:
                block = []
            continue
        if in_fence:
            if block is not None:
                block.append(line)
            continue
        match = _HEADING.match(line)
        if match:
            if in_section:
                break
            in_section = match.group(2) == heading
    raise SnippetChanged(f"no ```{language} block under the heading {heading!r} in {doc}")


def replace_once(text: str, pattern: str, replacement: str) -> str:
    """`text` with the single match of the regex `pattern` replaced (literally)."""
    found = re.findall(pattern, text)
    if len(found) != 1:
        raise SnippetChanged(
            f"expected exactly one match of {pattern!r} in the snippet, found {len(found)}:\n{text}"
        )
    return re.sub(pattern, lambda _: replacement, text)


def quoted(value: str) -> str:
    """A double-quoted string literal that Lua and Emacs Lisp both read back as `value`."""
    if not value.isascii():
        raise ValueError(f"keep test paths ASCII, got {value!r}")
    return json.dumps(value)
