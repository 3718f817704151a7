"""Keeping what the model reads bounded: per-output caps and a token budget for the history.

A run stores only capped tool outputs, so its memory does not grow with the files it reads. Before
each model call the history is fitted to a budget derived from the model's context length by
eliding, oldest first, old tool outputs and the long argument values of old calls (a rejected
1 MB write_file would otherwise be re-sent with every request). Every call keeps its id, name
and paired result, and the system and first user messages are never touched. The one thing
left out is a turn's overflow: of the calls skipped past the per-turn cap only the first pair
is shown, its result saying how many the turn made (they ran not, and say nothing more).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rune_lsp.loop.messages import Message, ToolCall
from rune_lsp.loop.normalize import MAX_CALLS_PER_TURN, canonical_json, over_cap_note
from rune_lsp.text_clip import clip

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
#: Argument values up to this many characters (as JSON) are never elided: paths, patterns and
#: short texts keep each old call readable for what it was.
KEPT_ARGUMENT_CHARS = 200

_CAPPED = (
    "\n[output truncated: showed the first {kept} of {total} characters. Ask for less to see "
    "the rest, e.g. read_file with a narrower start_line/end_line range, or a more specific "
    "search pattern.]"
)


def cap_output(content: str, cap: int = DEFAULT_OUTPUT_CAP) -> str:
    """At most `cap` characters of `content`, with a note on how to get the rest."""
    return clip(content, cap, marker=_CAPPED)


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def call_tokens(call: ToolCall) -> int:
    """A call as the wire carries it: its name and its arguments as JSON."""
    return estimate_tokens(call.name) + estimate_tokens(canonical_json(call.arguments))


def message_tokens(message: Message) -> int:
    return (
        MESSAGE_OVERHEAD_TOKENS
        + estimate_tokens(message.content)
        + sum(call_tokens(call) for call in message.tool_calls)
    )


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


def argument_elision_note(key: str, length: int) -> str:
    return f"[elided: {length} chars of {key}, sent in an earlier turn and not repeated here]"


def fit_history(messages: Sequence[Message], budget: int) -> list[Message]:
    """The history with the oldest tool outputs and call arguments elided until it fits
    `budget` tokens.

    Only role=tool contents and long argument values of assistant calls change; message
    count, order, call ids and names stay as they are. When even eliding everything is not
    enough, the result is as small as eliding can make it.
    """
    fitted = without_overflow(messages)
    excess = history_tokens(fitted) - budget
    for index, message in enumerate(fitted):
        if excess <= 0:
            break
        if message.role == "tool":
            slimmer = message.model_copy(update={"content": elision_note(message)})
        elif message.role == "assistant" and message.tool_calls:
            calls = tuple(_elide_arguments(call) for call in message.tool_calls)
            slimmer = message.model_copy(update={"tool_calls": calls})
        else:
            continue
        saved = message_tokens(message) - message_tokens(slimmer)
        if saved <= 0:
            continue
        fitted[index] = slimmer
        excess -= saved
    return fitted


def without_overflow(messages: Sequence[Message]) -> list[Message]:
    """`messages` less the pairs of calls skipped past MAX_CALLS_PER_TURN, all but the first
    of each turn: a turn of 30,000 calls would otherwise be re-sent with every request."""
    overflowing = [
        m for m in messages if m.role == "assistant" and len(m.tool_calls) > MAX_CALLS_PER_TURN + 1
    ]
    if not overflowing:
        return list(messages)
    results = {m.tool_call_id: m.content for m in messages if m.role == "tool"}
    dropped: set[str] = set()
    for message in overflowing:
        note = over_cap_note(len(message.tool_calls))
        dropped.update(
            call.id
            for call in message.tool_calls[MAX_CALLS_PER_TURN + 1 :]
            if results.get(call.id) == note  # only what the cap skipped, nothing that ran
        )
    shown: list[Message] = []
    for message in messages:
        if message.role == "tool" and message.tool_call_id in dropped:
            continue
        if message.role == "assistant" and any(call.id in dropped for call in message.tool_calls):
            kept = tuple(call for call in message.tool_calls if call.id not in dropped)
            message = message.model_copy(update={"tool_calls": kept})
        shown.append(message)
    return shown


def _elide_arguments(call: ToolCall) -> ToolCall:
    """`call` with each argument value longer than KEPT_ARGUMENT_CHARS replaced by a note that
    tells the model what was there."""
    arguments = dict(call.arguments)
    for key, value in call.arguments.items():
        length = len(canonical_json(value))
        if length > KEPT_ARGUMENT_CHARS:
            arguments[key] = argument_elision_note(key, length)
    if arguments == call.arguments:
        return call
    return call.model_copy(update={"arguments": arguments})
