"""Fenced code blocks in a model's answer, the file a block names, and which file's language a
block can be. The one fence parser of rune-lsp.

Fences follow CommonMark (https://spec.commonmark.org/0.31.2/#fenced-code-blocks): an opening
run of at least three backticks or tildes, an info string (for backticks, one without a
backtick), content lines, and a closing run of the same character at least as long with nothing
after it but spaces. Three departures, all for model answers: a fence may be indented by any
amount (models nest blocks in list items; the opening fence's indentation is removed from the
content lines, as CommonMark does for up to three spaces), and its closing fence by up to
three spaces more; a fence with an info string inside a block opens a block nested in it (code
quoting a docstring's ```pycon example), whose closing fence is content too; and an unclosed
block is dropped rather than running to the end of the text (an answer cut mid-block proposes
nothing).
Every step is a string operation on one line: reading is linear in the answer's length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

from rune_lsp.lines import line_texts

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
#: A relative file path as models write it after a tag or in a first-line comment.
_PATH = r"[\w.][\w./-]*\.\w+"
#: `title=utils.py`, `file="utils.py"`, `filename: utils.py` in an info string.
_INFO_PATH = re.compile(rf"""(?:title|file|filename|path)\s*[=:]\s*["']?({_PATH})["']?""", re.I)
#: `python:utils.py` (the tag and the path in one word).
_TAG_PATH = re.compile(rf"^\w+:({_PATH})$")
#: A first line that only names a file: `# utils.py`, `# file: pkg/utils.py`, `// app.js`.
_LABEL = re.compile(rf"^(?:#|//)\s*(?:(?:file|filename|path)\s*:\s*)?({_PATH})\s*$", re.I)
#: Above a fence, outside any block, only the explicit form names a file: `# file: pkg/x.py`
#: (a bare `# v2.0` or `# helpers.py` there may be a caption or a heading).
_LABEL_ABOVE = re.compile(rf"^(?:#|//)\s*(?:file|filename|path)\s*:\s*({_PATH})\s*$", re.I)
#: Longer info strings and first lines name no file (and are not searched: reading stays linear).
_NAMING_LENGTH = 300
#: How much deeper than its opening fence a closing fence may be indented (CommonMark allows
#: 0-3 spaces). A fence indented further is content: humanize's docstrings hold indented
#: ```pycon examples, and their closing fence cut Qwen2.5-Coder 1.5B's block of
#: `intcomma` in two (bench/effect release_multi, 25_humanize, 2026-12-02).
MAX_CLOSING_SHIFT = 3


@dataclass(frozen=True)
class Fence:
    """One closed fenced block: its tag, its content lines (without line endings, without the
    label line that named its file) and the path it names, if any."""

    tag: str  # the info string's first word, lower case ("" when untagged)
    lines: tuple[str, ...]
    named: str | None = None  # the file its info string, first-line label or label above names


def fenced_blocks(text: str) -> list[Fence]:
    """Every closed fenced block of `text`, in order; an unclosed one is not a proposal."""
    found: list[Fence] = []
    lines = line_texts(text)
    index = 0
    above = ""  # the last line with text before the next opening fence, outside any block
    while index < len(lines):
        opening = _opening(lines[index])
        index += 1
        if opening is None:
            above = lines[index - 1] if lines[index - 1].strip() else above
            continue
        indent, fence, info = opening
        body: list[str] = []
        nested = 0  # blocks opened inside this one's content (a docstring's ```pycon example)
        while index < len(lines):
            line = lines[index]
            index += 1
            if _closes(line, fence):
                if nested == 0 and _indentation(line) <= indent + MAX_CLOSING_SHIFT:
                    found.append(_fence(info, body, above))
                    break
                nested = max(0, nested - 1)
            elif _opens_tagged(line, fence):
                nested += 1
            body.append(_unindented(line, indent))
        above = ""  # a block's closing fence (or an unclosed block) names nothing
    return found


def answer_blocks(text: str) -> list[Fence]:
    """The code blocks of an answer: its fenced blocks; or, when it has none and its first
    line is a file label (`# file: pkg/x.py`), all of it as one untagged block of that file.
    Asked to begin a block for another file with that label, Qwen2.5-Coder 1.5B began its
    answer with it and left the fence out (bench/effect release_multi, 3 of 12 runs on
    2026-12-02), or only the opening one (corpus_multi 07_config_get): the block then ends at
    its closing fence. Placing is as strict as for a fenced block: prose after unclosed code
    leaves it unable to parse, and it is refused."""
    fences = fenced_blocks(text)
    if fences:
        return fences
    lines = line_texts(text)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or len(lines[first]) > _NAMING_LENGTH:
        return []
    label = _LABEL.match(lines[first].strip())
    if label is None or not lines[first].lstrip().lower().startswith(("# file", "// file")):
        return []
    body = lines[first + 1 :]
    # Only the opening fence left out: the block ends at its closing fence, prose after it.
    closing = next((i for i, line in enumerate(body) if line.strip() in ("```", "~~~")), None)
    body = body if closing is None else body[:closing]
    return [Fence("", tuple(line.rstrip() for line in body), label.group(1))] if body else []


def _indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _opens_tagged(line: str, fence: str) -> bool:
    """`line` opens a block with an info string inside the content of a block fenced with
    `fence`: a fence with a tag never closes one (CommonMark), so it opens one nested in it."""
    opening = _opening(line)
    return opening is not None and opening[1][0] == fence[0] and bool(opening[2])


def _opening(line: str) -> tuple[int, str, str] | None:
    """(indentation, fence run, info string) when `line` opens a fence."""
    stripped = line.lstrip(" \t")
    if not stripped.startswith(("```", "~~~")):
        return None
    char = stripped[0]
    run = len(stripped) - len(stripped.lstrip(char))
    info = stripped[run:].strip()
    if char == "`" and "`" in info:
        return None  # CommonMark: an info string after backticks holds no backtick
    return len(line) - len(stripped), char * run, info


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence) and not stripped.lstrip(fence[0])


def _unindented(line: str, indent: int) -> str:
    """`line` without up to `indent` leading spaces (the opening fence's indentation)."""
    width = len(line) - len(line.lstrip(" "))
    return line[min(width, indent) :]


def _fence(info: str, body: list[str], before: str) -> Fence:
    """The block of `info` and `body`; `before`, the answer's last line with text above its
    opening fence, names its file when it is an explicit label (`# file: x.py`) and the block
    itself names none."""
    words = info.split()
    tag = words[0].lower() if words else ""
    named = _named_by_info(info) if len(info) <= _NAMING_LENGTH else None
    first = next((i for i, line in enumerate(body) if line.strip()), None)
    if first is not None and len(body[first]) <= _NAMING_LENGTH:
        label = _LABEL.match(body[first].strip())
        if label is not None and (named is None or PurePath(label.group(1)) == PurePath(named)):
            named = label.group(1)
            del body[: first + 1]
    if named is None and len(before) <= _NAMING_LENGTH:
        # Asked to begin the block with `# file: path`, Qwen2.5-Coder 1.5B wrote that label
        # above the fence, right above it or a blank line apart (bench/effect corpus_multi
        # 02_slugify and 04_duration, 2026-12-03).
        label = _LABEL_ABOVE.match(before.strip())
        named = label.group(1) if label is not None else None
    if named is not None and tag == named.lower():
        tag = ""  # ```utils.py: the path is the whole tag
    return Fence(tag, tuple(line.rstrip() for line in body), named)


def _named_by_info(info: str) -> str | None:
    in_info = _INFO_PATH.search(info)
    if in_info is not None:
        return in_info.group(1)
    word = info.split()[0] if info.split() else ""
    joined = _TAG_PATH.match(word)
    if joined is not None:
        return joined.group(1)
    if re.fullmatch(_PATH, word) and PurePath(word).suffix.lower() in LANGUAGE_TAGS:
        return word  # ```utils.py
    return None


def speaks(tag: str, path: str) -> bool:
    """Whether a block tagged `tag` can be code of `path`."""
    if not tag:
        return True
    pure = PurePath(path)
    if tag == pure.name.lower():  # ```app.py
        return True
    tag = tag.split(":", 1)[0]  # ```python:utils.py
    return tag in LANGUAGE_TAGS.get(pure.suffix.lower(), frozenset({pure.suffix.lstrip(".")}))
