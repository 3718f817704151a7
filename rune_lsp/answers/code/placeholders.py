"""Comments in a model's block that stand for code it left out (`# ...`, `# rest of the code`):
such a block cannot be placed as written, since the code it leaves out is not known."""

from __future__ import annotations

import re

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
#: Placeholders too short to tell from a real comment but when they are the whole comment.
_PLACEHOLDER_COMMENT = re.compile(
    r"#\s*(?:[(\[]\s*)?(etc\.?|snip(ped)?|more code|and so on|same)\s*(?:[)\]]\s*)?$",
    re.IGNORECASE,
)


def has_placeholder(lines: list[str]) -> bool:
    """Whether any of `lines` holds a comment that stands for code left out."""
    return any(is_placeholder(line) for line in lines)


def is_placeholder(line: str) -> bool:
    """Whether `line` holds a comment that stands for code left out."""
    at = line.find("#")
    if at < 0:
        return False
    comment = line[at:]
    return bool(_PLACEHOLDER.search(comment) or _PLACEHOLDER_COMMENT.match(comment))
