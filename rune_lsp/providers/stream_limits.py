"""Bounds on one model answer while it streams: a size cap and a cut for degenerate repetition.

A model server may stream for as long as it likes, and a model may loop on the same sentence
until its output limit. Without a bound, a fast endless stream grew the server's memory by
about 200 MB a second. Both wire formats feed every piece of text, thinking and tool-call
arguments through a `TurnLimiter`; once it says `cut`, the provider stops reading and closes the
response, and the turn carries a `TurnCut` that the loop tells the model about on its next turn.

No I/O here: the provider owns the response.
"""

from __future__ import annotations

from rune_lsp.loop.messages import CutReason, TurnCut

#: Characters of text, thinking and tool-call arguments one turn may stream. Generous on
#: purpose: about twice the ~512,000 characters of the largest output window served today
#: (128k tokens at ~4 characters each), and far above a real edit; what it stops is a stream
#: that would otherwise grow until the server runs out of memory (1 MB of ASCII text held).
MAX_TURN_CHARS = 1_000_000
#: Bytes of one NDJSON/SSE line, SSE event or whole non-streamed body. A single line can carry
#: a whole tool call (Ollama sends them in one chunk), JSON-escaped to up to 6 bytes a char.
MAX_LINE_BYTES = 8 * MAX_TURN_CHARS

#: A degenerate stream: the end of the text is one span repeated, at least REPEAT_MIN_COUNT
#: times and over at least REPEAT_MIN_CHARS characters (~500 tokens, ~17 s of a small local
#: model). Legitimate answers and code do not repeat one span exactly for that long.
REPEAT_MIN_CHARS = 2_000
REPEAT_MIN_COUNT = 6
#: Longest repeated span looked for (a paragraph or a small function).
REPEAT_MAX_PERIOD = 1_000
#: The tail searched for an earlier occurrence of the text's last characters.
_PROBE = 16
#: Earlier occurrences tried per check: a probe of spaces also matches one character back.
_CANDIDATES = 8
#: Characters kept and checked: enough for the longest span's repeats.
_TAIL = REPEAT_MIN_COUNT * REPEAT_MAX_PERIOD + REPEAT_MAX_PERIOD + _PROBE
#: New characters between two checks: cheap enough for every delta, early enough to matter.
_CHECK_EVERY = 256


def repeating_period(text: str) -> int | None:
    """The length of the span that `text` ends repeating (see REPEAT_MIN_*), or None."""
    n = len(text)
    if n < REPEAT_MIN_CHARS + _PROBE:
        return None
    probe = text[n - _PROBE :]
    lowest = max(0, n - _PROBE - REPEAT_MAX_PERIOD)
    end = n - 1  # occurrences that start at least one character before the probe itself
    for _ in range(_CANDIDATES):
        found = text.rfind(probe, lowest, end)
        if found < 0:
            return None
        period = n - _PROBE - found
        region = max(REPEAT_MIN_CHARS, REPEAT_MIN_COUNT * period)
        if region + period > n:
            return None  # longer periods need even more text
        if text[n - region :] == text[n - region - period : n - period]:
            return period
        end = found + _PROBE - 1
    return None


class RepetitionDetector:
    """Fed one stream's pieces; says when its end has become one span repeating."""

    def __init__(self) -> None:
        self._tail = ""
        self._unchecked = 0

    def feed(self, piece: str) -> bool:
        self._tail += piece
        self._unchecked += len(piece)
        if len(self._tail) > 2 * _TAIL:
            self._tail = self._tail[-_TAIL:]
        if self._unchecked < _CHECK_EVERY:
            return False
        self._unchecked = 0
        return repeating_period(self._tail[-_TAIL:]) is not None


class TurnLimiter:
    """Counts what one turn streamed and decides when to cut it."""

    def __init__(self, max_chars: int = MAX_TURN_CHARS) -> None:
        self.max_chars = max_chars
        self.chars = 0
        self.cut: TurnCut | None = None
        self._text = RepetitionDetector()
        self._thinking = RepetitionDetector()

    def text(self, piece: str) -> None:
        self._count(piece)
        if self.cut is None and self._text.feed(piece):
            self.stop("repetition")

    def thinking(self, piece: str) -> None:
        self._count(piece)
        if self.cut is None and self._thinking.feed(piece):
            self.stop("repetition")

    def arguments(self, piece: str) -> None:
        # Arguments are not checked for repetition: a file's content may legitimately repeat.
        self._count(piece)

    def stop(self, reason: CutReason) -> None:
        """Cut here (the first reason stands)."""
        if self.cut is None:
            self.cut = TurnCut(reason=reason, chars=self.chars)

    def finished(self, finish_reason: str | None) -> TurnCut | None:
        """The turn's cut: the runtime's own, else the server's output limit."""
        if self.cut is None and finish_reason == "length":
            return TurnCut(reason="length", chars=self.chars)
        return self.cut

    def _count(self, piece: str) -> None:
        self.chars += len(piece)
        if self.chars > self.max_chars:
            self.stop("size")
