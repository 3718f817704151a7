"""What the model is asked and told about code blocks: the ask for one, why one was not taken
as an edit, and how to answer shorter after a cut. The blocks themselves are read by
`answers/code` (`read_code`)."""

from __future__ import annotations

#: How a fix is asked for. Small models (Qwen2.5-Coder 0.5B-1.5B) rarely call edit_file well but
#: write a corrected function reliably; answers/code makes that block a reviewed edit.
#: Measured side by side on bench/effect (docs/performance.md, "Effect").
#: Lower-case: it follows "Fix what still fails: " and the like; the task capitalises it.
BLOCK_ASK = (
    "answer with the corrected code in one fenced code block holding the whole function you change"
)
#: How a turn read for code blocks is asked to answer shorter after a cut: the ask itself,
#: once (the task's ask has no sentence after the block, so neither has this).
CODE_CUT_ADVICE = f"Answer shorter: {BLOCK_ASK}, once."


def unchanged_head(target: str, *, layout: bool = False) -> str:
    """What is said of a code block that is `target`'s code as it is now (`layout`: but for
    blank lines, comments or layout)."""
    if layout:
        return (
            f"Your code block runs the same as the current code of {target}: it changes only "
            "blank lines, comments or layout, so it changes nothing the check runs"
        )
    return f"Your code block is the same as the current code of {target}: it changes nothing"


def no_block_text(target: str) -> str:
    """A turn asked for code (the code-first turn) that answered with no code block at all."""
    return (
        f"[rune] Nothing was changed: your answer holds no code block of {target}. "
        f"To change it, {BLOCK_ASK}."
    )
