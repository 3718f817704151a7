"""What the loop does with an answer that was cut before the model finished it.

Providers cut a stream at the per-turn size cap or when it degenerates into repetition, and the
server may stop it at `maxOutputTokens` (`finish_reason: length`). Such an answer is never taken
as a final one: the history keeps a bounded head of it, and the model's next turn starts with a
notice saying why it was cut and how to answer instead.
"""

from __future__ import annotations

from rune_lsp.answers.calls.prompts import CALLS_CUT_ADVICE
from rune_lsp.answers.code_prompts import CODE_CUT_ADVICE
from rune_lsp.loop.messages import TurnCut
from rune_lsp.text_clip import clip

#: Characters of a cut answer kept in the history: a degenerate one is mostly repetition, and
#: every later request carries what is kept.
KEPT_CUT_TEXT = 8_000


def kept_text(text: str) -> str:
    """The part of a cut answer the history keeps."""
    return clip(text, KEPT_CUT_TEXT)


def cut_error(cut: TurnCut) -> str:
    """The run's error when it ends on a cut answer."""
    return f"the model's answer was cut {_why(cut)}"


def cut_notice(cut: TurnCut, *, blocks: bool = False) -> str:
    """What the model is told before its next turn; `blocks`: the run takes a code block as an
    edit of its target (answers/code), so that is the shorter answer to ask for, in the words
    of the task's own ask."""
    advice = CODE_CUT_ADVICE if blocks else CALLS_CUT_ADVICE
    if cut.reason == "repetition":
        return (
            f"[rune] Your previous answer was cut {_why(cut)}: it kept repeating the same "
            "text. Do not repeat yourself. " + advice
        )
    return f"[rune] Your previous answer was cut {_why(cut)}. " + advice


def blocks_readable(cut: TurnCut | None) -> bool:
    """Whether a turn's closed code blocks may be read as an edit: an answer cut because it
    repeated itself has said what it had to say before the loop began (a block it closed is as
    meant as in an uncut answer); one cut at a size limit may have been cut mid-thought."""
    return cut is None or cut.reason == "repetition"


def _why(cut: TurnCut) -> str:
    if cut.reason == "length":
        return f"at the output limit (after {cut.chars:,} characters)"
    if cut.reason == "size":
        return f"at {cut.chars:,} characters, the most one answer may stream"
    return f"after {cut.chars:,} characters"
