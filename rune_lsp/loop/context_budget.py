"""Keeping what the model reads bounded: per-output caps and a token budget for the history.

A run stores only capped tool outputs, so its memory does not grow with the files it reads. Before
each model call the history is fitted to a budget derived from the model's context length by
eliding old tool outputs, oldest first. Messages are never dropped: every call keeps its paired
result, and the system and first user messages are never touched.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rune_lsp.loop.state import Message

DEFAULT_OUTPUT_CAP = 12_000
DEFAULT_CONTEXT_LENGTH = 8_192
#: Share of the context kept free for the model's answer.
ANSWER_RESERVE = 0.25
#: Below this the model cannot do useful work anyway; never plan with less.
MIN_HISTORY_TOKENS = 1_024
#: Rough characters per token; code tokenises denser than prose, so this errs high on text.
CHARS_PER_TOKEN = 4
#: Role markers and separators every chat template adds around a message.
MESSAGE_OVERHEAD_TOKENS = 4


def cap_output(content: str, cap: int = DEFAULT_OUTPUT_CAP) -> str:
    """At most `cap` characters of `content`, with a note on how to get the rest."""
    if len(content) <= cap:
        return content
    return (
        content[:cap]
        + f"\n[output truncated: showed the first {cap} of {len(content)} characters. "
        "Ask for less to see the rest, e.g. read_file with a narrower start_line/end_line "
        "range, or a more specific search pattern.]"
    )


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def message_tokens(message: Message) -> int:
    tokens = MESSAGE_OVERHEAD_TOKENS + estimate_tokens(message.content)
    for call in message.tool_calls:
        tokens += estimate_tokens(call.name) + estimate_tokens(str(call.arguments))
    return tokens


def history_tokens(messages: Sequence[Message]) -> int:
    return sum(message_tokens(message) for message in messages)


def history_budget(context_length: int | None) -> int:
    """Tokens the history may use: the context minus the answer's reserve, with a floor."""
    context = context_length if context_length and context_length > 0 else DEFAULT_CONTEXT_LENGTH
    return max(context - math.ceil(context * ANSWER_RESERVE), MIN_HISTORY_TOKENS)


def elision_note(message: Message) -> str:
    return (
        f"[elided: {len(message.content)} chars of {message.name or 'tool'} output; "
        "call the tool again if you need it]"
    )


def fit_history(messages: Sequence[Message], budget: int) -> list[Message]:
    """The history with the oldest tool outputs elided until it fits `budget` tokens.

    Only role=tool contents change; message count, order and ids stay as they are. When even
    eliding every tool output is not enough, the result is as small as eliding can make it.
    """
    fitted = list(messages)
    excess = history_tokens(fitted) - budget
    for index, message in enumerate(fitted):
        if excess <= 0:
            break
        if message.role != "tool":
            continue
        note = elision_note(message)
        saved = estimate_tokens(message.content) - estimate_tokens(note)
        if saved <= 0:
            continue
        fitted[index] = message.model_copy(update={"content": note})
        excess -= saved
    return fitted
