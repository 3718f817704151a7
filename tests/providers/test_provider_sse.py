"""Server-sent events decoding as chat completion streams use it."""

from __future__ import annotations

from rune_lsp.providers.sse import SseDecoder


def _events(lines: list[str]) -> list[str]:
    decoder = SseDecoder()
    events = [e for e in (decoder.feed(line) for line in lines) if e is not None]
    last = decoder.finish()
    return [*events, last] if last is not None else events


def test_one_data_line_per_event() -> None:
    assert _events(['data: {"a":1}', "", "data: [DONE]", ""]) == ['{"a":1}', "[DONE]"]


def test_comments_and_other_fields_are_skipped() -> None:
    lines = [": keep-alive", "", "event: message", "id: 7", "retry: 100", "data: x", ""]

    assert _events(lines) == ["x"]


def test_multi_line_data_joins_with_newlines() -> None:
    assert _events(["data: first", "data: second", ""]) == ["first\nsecond"]


def test_space_after_colon_is_optional_and_only_one_is_removed() -> None:
    assert _events(["data:tight", "", "data:  two spaces", ""]) == ["tight", " two spaces"]


def test_last_event_without_blank_line_is_flushed() -> None:
    assert _events(["data: tail"]) == ["tail"]


def test_blank_lines_alone_make_no_event() -> None:
    assert _events(["", "", ""]) == []
