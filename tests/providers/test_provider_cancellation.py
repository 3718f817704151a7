"""Cancelling a model call mid-stream closes the HTTP stream at once, and the server sees it.

The bound asserted here is loose (ten seconds) to stay deterministic on a busy machine; the
100 ms target is a benchmark's business.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

from rune_lsp.loop.messages import Message
from rune_lsp.providers.transport import HttpProvider
from tests.doubles.model_double import Hang, ModelDouble, Reply, Scripted

Connect = Callable[..., HttpProvider]
ASK = [Message(role="user", content="write a long story")]
#: Seconds a cancel may take to close the stream: the slow drip sends a chunk every 30 s and the
#: stall never does, so waiting for either is far over this; a loaded machine is far under it
#: (it was 1 s, which a busy 2-core CI machine can exceed: issue 25, item 10).
LOOSE_BOUND = 10.0


@pytest.mark.parametrize(
    "answer",
    [
        Reply(text="one two three four five", chunk_delay=30.0),
        Hang(after_chunks=2, reply=Reply(text="one two three")),
    ],
    ids=["slow drip", "stalled"],
)
async def test_cancel_mid_stream_closes_the_response_promptly(
    double: ModelDouble, connect: Connect, provider: str, answer: Scripted
) -> None:
    double.script(answer)
    model = connect(provider)
    await model.capabilities()  # so the stream is the only request in flight

    task = asyncio.create_task(model.chat(ASK, []))
    await _streaming(double)
    cancelled_at = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    finished_at = time.monotonic()

    assert finished_at - cancelled_at < LOOSE_BOUND
    disconnect = await asyncio.to_thread(double.wait_for_disconnect, LOOSE_BOUND)
    assert disconnect is not None, "the server never saw the client go"
    assert disconnect.path.endswith("chat/completions") or disconnect.path == "/api/chat"
    assert disconnect.at - cancelled_at < LOOSE_BOUND


async def test_provider_still_works_after_a_cancelled_call(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    double.script(Reply(text="slow answer here", chunk_delay=30.0), Reply(text="fresh"))
    model = connect(provider)
    task = asyncio.create_task(model.chat(ASK, []))
    await _streaming(double)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    turn = await model.chat(ASK, [])

    assert turn.text == "fresh"


async def _streaming(double: ModelDouble) -> None:
    """Until the double has the chat request and the first chunks had time to arrive."""
    assert await asyncio.to_thread(double.wait_for_chat, 5.0)
    await asyncio.sleep(0.1)
