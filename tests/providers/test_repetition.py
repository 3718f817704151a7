"""Issue 16: a stream that degenerates (one span repeating at the end) is cut early, and
real answers and code are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from rune_lsp.providers.stream_limits import (
    REPEAT_MIN_CHARS,
    RepetitionDetector,
    TurnLimiter,
    repeating_period,
)

ROOT = Path(__file__).resolve().parents[2]
# How small models loop: a sentence, a code line pair, a whole paragraph with its fix.
LOOPS = [
    "I will fix the bug now. ",
    "    return a - b\n    # should be a + b\n",
    (
        "The function `add` subtracts its arguments instead of adding them. To fix it, "
        "change `return a - b` to `return a + b`:\n```python\ndef add(a, b):\n"
        "    return a + b\n```\n"
    ),
]


def _fed(text: str, piece: int = 5) -> int | None:
    """Where the detector fires when `text` streams in `piece`-character deltas."""
    detector = RepetitionDetector()
    for start in range(0, len(text), piece):
        if detector.feed(text[start : start + piece]):
            return start + piece
    return None


@pytest.mark.parametrize("span", LOOPS, ids=["sentence", "code lines", "paragraph"])
def test_a_loop_is_cut_soon_after_it_covers_the_minimum(span: str) -> None:
    intro = "Let me look at the code first. The test expects 5 but gets -1.\n"
    text = intro + span * (20_000 // len(span))
    cut_at = _fed(text)
    assert cut_at is not None
    assert cut_at < len(intro) + max(REPEAT_MIN_CHARS, 6 * len(span)) + 2 * 256 + len(span)
    assert repeating_period(text) == len(span)


def _sources() -> list[Path]:
    # Varied real text, and some that repeats in structure: a lock file, recorded streams.
    paths = sorted((ROOT / "rune_lsp").rglob("*.py"))
    paths += sorted((ROOT / "tests" / "providers" / "fixtures").rglob("*.*"))
    paths += [ROOT / "client-vscode" / "package-lock.json", ROOT / "docs" / "architecture.md"]
    return [path for path in paths if path.is_file()]


def test_real_code_and_documents_are_never_cut() -> None:
    cut = [path.name for path in _sources() if _fed(path.read_text(encoding="utf-8"), 7)]
    assert cut == []


def test_short_repeats_are_left_alone() -> None:
    assert repeating_period("-" * 80 + "\n" + "| a | b |\n" * 50) is None
    assert _fed("x = 0\n" * 300) is None  # 1,800 characters: under the minimum


def test_the_limiter_reports_the_first_reason_only() -> None:
    limiter = TurnLimiter(max_chars=3_000)
    for _ in range(200):
        limiter.text("I will fix the bug now. ")
    assert limiter.cut is not None and limiter.cut.reason == "repetition"
    limiter.arguments("z" * 10_000)
    assert limiter.cut.reason == "repetition"
    assert limiter.finished("length") == limiter.cut
