"""Keeps a leading `<think>…</think>` block out of the visible answer.

Servers that do not separate reasoning themselves (Ollama without `think`, llama.cpp without a
reasoning parser, vLLM without one) pass the model's thinking through as ordinary text. Only a
block at the very start is taken: that is where reasoning models put it, and a tag later in an
answer may be part of the answer.
"""

from __future__ import annotations

from enum import Enum

OPEN = "<think>"
CLOSE = "</think>"


class _State(Enum):
    UNDECIDED = "undecided"  # only whitespace, or a prefix of OPEN, seen so far
    THINKING = "thinking"
    AFTER_THINKING = "after_thinking"  # drop the blank lines between the block and the answer
    VISIBLE = "visible"


class InlineThinkingSplitter:
    """Fed streamed text pieces; returns the visible part of each, keeps the thinking."""

    def __init__(self) -> None:
        self._state = _State.UNDECIDED
        self._pending = ""
        self._thinking: list[str] = []

    @property
    def thinking(self) -> str:
        return "".join(self._thinking)

    def feed(self, piece: str) -> str:
        if self._state is _State.VISIBLE:
            return piece
        self._pending += piece
        if self._state is _State.UNDECIDED:
            return self._decide()
        if self._state is _State.THINKING:
            return self._think()
        return self._skip_blank()

    def finish(self) -> str:
        """The visible text still held back when the stream ends."""
        rest, self._pending = self._pending, ""
        if self._state is _State.THINKING:
            # Cut off mid-thought (e.g. the length limit): all of it was thinking.
            self._thinking.append(rest)
            return ""
        if self._state is _State.AFTER_THINKING:
            return ""
        self._state = _State.VISIBLE
        return rest

    def _decide(self) -> str:
        stripped = self._pending.lstrip()
        if stripped.startswith(OPEN):
            self._pending = stripped[len(OPEN) :]
            self._state = _State.THINKING
            return self._think()
        if not stripped or OPEN.startswith(stripped):
            return ""
        self._state = _State.VISIBLE
        shown, self._pending = self._pending, ""
        return shown

    def _think(self) -> str:
        end = self._pending.find(CLOSE)
        if end < 0:
            # Hold back a tail that may be the start of a split closing tag.
            keep = _partial_suffix(self._pending, CLOSE)
            cut = len(self._pending) - keep
            self._thinking.append(self._pending[:cut])
            self._pending = self._pending[cut:]
            return ""
        self._thinking.append(self._pending[:end])
        self._pending = self._pending[end + len(CLOSE) :]
        self._state = _State.AFTER_THINKING
        return self._skip_blank()

    def _skip_blank(self) -> str:
        stripped = self._pending.lstrip()
        if not stripped:
            self._pending = ""
            return ""
        self._state = _State.VISIBLE
        self._pending = ""
        return stripped


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest end of `text` that is a proper start of `tag`."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:size]):
            return size
    return 0
