"""Issue 14.3 / 16: one model answer is bounded, whatever the server streams.

An endless stream is cut at the per-turn cap (or, when it repeats itself, much earlier) and
the response is closed, so the server stops; memory stays bounded; the turn says it was cut.
"""

from __future__ import annotations

import asyncio
import tracemalloc
from collections.abc import Callable

import httpx
import pytest

from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.messages import Message, TurnCut
from rune_lsp.loop.state import Finished
from rune_lsp.providers.errors import AnswerTooLargeError
from rune_lsp.providers.line_reader import LineReader
from rune_lsp.providers.sse import SseDecoder
from rune_lsp.providers.stream_limits import MAX_LINE_BYTES, MAX_TURN_CHARS
from rune_lsp.providers.transport import HttpProvider
from tests.doubles.model_double import Endless, ModelDouble, Reply
from tests.loop.fakes import FakeExecutor

Connect = Callable[..., HttpProvider]

HI = [Message(role="user", content="Fix the bug.")]
#: What holding the cut turn may cost, generously: 1 MB of text plus parsing garbage. The
#: uncapped stream grew by about 200 MB a second.
MEMORY_BOUND = 40 * 1024 * 1024


async def test_an_endless_stream_is_cut_at_the_cap_and_closed(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    double.script(Endless(varying=True))
    model = connect(provider)

    tracemalloc.start()
    try:
        turn = await asyncio.wait_for(model.chat(HI, []), timeout=60)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert turn.cut is not None and turn.cut.reason == "size"
    assert MAX_TURN_CHARS < turn.cut.chars <= MAX_TURN_CHARS + 2_000  # one piece past the cap
    assert len(turn.text) <= turn.cut.chars
    assert turn.finish_reason == "size"
    assert peak < MEMORY_BOUND
    # Leaving the stream closed the connection: the server saw the client go.
    assert await asyncio.to_thread(double.wait_for_disconnect, 5) is not None


async def test_a_stream_repeating_itself_is_cut_early(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    double.script(Endless(text="    return a - b\n    # fix: return a + b\n"))

    turn = await asyncio.wait_for(connect(provider).chat(HI, []), timeout=30)

    assert turn.cut == TurnCut(reason="repetition", chars=turn.cut.chars if turn.cut else 0)
    assert 2_000 <= len(turn.text) < 3_000
    assert await asyncio.to_thread(double.wait_for_disconnect, 5) is not None


async def test_an_endless_plain_body_is_refused_typed(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    double.script(Endless(varying=True))

    with pytest.raises(AnswerTooLargeError, match="larger than 8,000,000 bytes"):
        await asyncio.wait_for(connect(provider, stream=False).chat(HI, []), timeout=60)


async def test_the_output_limit_is_a_cut_not_a_clean_answer(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    double.script(Reply(text="The bug is on line 3 because", finish_reason="length"))

    turn = await connect(provider).chat(HI, [])

    assert turn.finish_reason == "length"
    assert turn.cut == TurnCut(reason="length", chars=len("The bug is on line 3 because"))


async def test_a_clean_answer_is_not_cut(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    double.script(Reply(text="Fixed: add returns a + b now."))

    turn = await connect(provider).chat(HI, [])

    assert turn.cut is None and turn.finish_reason == "stop"


# --- the bounded reading underneath --------------------------------------------------------------


def _response(*chunks: bytes) -> httpx.Response:
    async def body():  # type: ignore[no-untyped-def]
        for chunk in chunks:
            yield chunk

    return httpx.Response(200, content=body())


async def _lines(reader: LineReader) -> list[str]:
    return [line async for line in reader]


async def test_lines_split_on_every_break_even_across_chunks() -> None:
    reader = LineReader(_response(b"data: a\r", b"\ndata: b\n\n", b"x\ry\r\n", b"tail"))

    assert await _lines(reader) == ["data: a", "data: b", "", "x", "y", "tail"]
    assert not reader.overflowed


async def test_a_line_longer_than_the_limit_ends_the_reading() -> None:
    reader = LineReader(_response(b"ok\n", b"x" * 600, b"x" * 600, b"\nnever\n"), limit=1_000)

    assert await _lines(reader) == ["ok"]
    assert reader.overflowed


def test_an_sse_event_that_never_ends_is_dropped_at_the_limit() -> None:
    decoder = SseDecoder(max_chars=100)
    for _ in range(20):
        assert decoder.feed("data: " + "z" * 10) is None
    assert decoder.overflowed
    assert decoder.finish() is None


def test_the_line_limit_holds_a_whole_call_at_the_turn_cap() -> None:
    # Ollama sends a tool call in one line; JSON escapes may take up to 6 bytes a character.
    assert MAX_LINE_BYTES >= 6 * MAX_TURN_CHARS


# --- a run over a real provider ---------------------------------------------------------------


@pytest.mark.parametrize("endless", [Endless(varying=True), Endless()], ids=["size", "repetition"])
async def test_a_run_goes_on_after_an_endless_answer_and_ends_typed(
    double: ModelDouble, connect: Connect, provider: str, endless: Endless
) -> None:
    double.script(endless, Reply(text="Fixed: add returns a + b."))
    loop = AgentLoop(connect(provider), FakeExecutor(), LoopConfig())

    outcome = await asyncio.wait_for(loop.run("Fix the bug."), timeout=60)

    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "completed"
    assert outcome.result.answer == "Fixed: add returns a + b."
    told = double.chat_requests[1].body["messages"][-1]
    assert told["role"] == "user" and "Your previous answer was cut" in told["content"]
    # What the next request carried of the cut answer is bounded.
    assert len(double.chat_requests[1].raw_body) < 20_000
