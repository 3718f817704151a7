"""Comments in a model's block that stand for code it left out (`# ...`, `# rest of the code`,
`// ... unchanged`): such a block cannot be placed as written, since the code it leaves out is
not known."""

from __future__ import annotations

import re
from pathlib import PurePath

#: Python's comment, the default (the definition tiers read only Python).
PYTHON_COMMENT: tuple[str, ...] = ("#",)
_C_LIKE = ("//", "/*")
#: What opens a comment, by a file's suffix. A language not listed gets the common ones.
_COMMENTS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys((".py", ".pyi", ".sh", ".bash", ".zsh", ".rb", ".pl", ".r"), ("#",)),
    **dict.fromkeys((".yaml", ".yml", ".toml", ".cfg", ".conf", ".tf", ".ex", ".exs"), ("#",)),
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".java", ".kt"), _C_LIKE),
    **dict.fromkeys((".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".go", ".rs"), _C_LIKE),
    **dict.fromkeys((".swift", ".scala", ".dart", ".groovy", ".proto", ".zig"), _C_LIKE),
    **dict.fromkeys((".css", ".scss", ".less"), ("/*", "//")),
    ".php": ("//", "/*", "#"),
    **dict.fromkeys((".sql", ".lua", ".hs", ".elm"), ("--",)),
    **dict.fromkeys((".html", ".htm", ".xml", ".vue", ".svelte", ".md"), ("<!--",)),
    **dict.fromkeys((".clj", ".lisp", ".el", ".scm", ".ini"), (";",)),
}
_ANY_LANGUAGE = ("#", "//", "/*", "<!--")


def comment_markers(path: str) -> tuple[str, ...]:
    """What opens a comment in the file at `path`."""
    return _COMMENTS.get(PurePath(path).suffix.lower(), _ANY_LANGUAGE)


#: What a comment says that stands for code left out: `# ...`, `# rest of the code`, `# (other
#: methods)`, `pass  # existing code`, `# the rest remains the same`. Matching a real comment
#: only makes a block refused, never misplaced; a phrase missed placed the comment over the
#: code it stood for (reader probe, 7 December 2026). Searched from a line's first `#` on:
#: a leading `#.*` backtracked from every `#`, 13 s for a line of 20,000 of them.
_PLACEHOLDER = re.compile(
    r"\.\.\.|…|\b(rest of|remaining|other (methods|functions|code)|existing|unchanged"
    r"|omitted|as before|same as (before|above)|no changes?|code here|remains? (the )?same"
    r"|stays? (the )?same|original (code|logic|implementation|body)"
    r"|previous (code|logic|implementation)|(keep|leave)s?( it)? as is)\b",
    re.IGNORECASE,
)
#: Placeholders too short to tell from a real comment but when they are the whole comment
#: (after its opening marker, before a closing `*/` or `-->`).
_PLACEHOLDER_COMMENT = re.compile(
    r"\s*(?:[(\[]\s*)?(etc\.?|snip(ped)?|more code|and so on|same)\s*(?:[)\]]\s*)?(?:\*/|-->)?\s*$",
    re.IGNORECASE,
)


def has_placeholder(lines: list[str], markers: tuple[str, ...] = PYTHON_COMMENT) -> bool:
    """Whether any of `lines` holds a comment that stands for code left out."""
    return any(is_placeholder(line, markers) for line in lines)


def is_placeholder(line: str, markers: tuple[str, ...] = PYTHON_COMMENT) -> bool:
    """Whether `line` holds a comment (opened by one of `markers`) that stands for code left
    out."""
    found = [(at, marker) for marker in markers if (at := line.find(marker)) >= 0]
    if not found:
        return False
    at, marker = min(found)
    comment = line[at + len(marker) :]
    return bool(_PLACEHOLDER.search(comment) or _PLACEHOLDER_COMMENT.match(comment))
