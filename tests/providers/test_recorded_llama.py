"""Real llama-server answers, recorded once, replayed through the OpenAI-compatible provider.

The bytes under fixtures/llama/ came from llama.cpp's server and the SmolLM2-135M model (see
manifest.json; `python -m tests.live.record_fixtures` records them again). httpx's mock
transport hands them to the provider as a socket would, whole or in arbitrary pieces, and the
turn the provider builds must match a plain reading of the same bytes.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rune_lsp.answers.calls.text import parse_text_turn
from rune_lsp.loop.messages import Message, ModelTurn, Usage
from rune_lsp.loop.normalize import IdAllocator, normalize_calls
from rune_lsp.loop.ports import ModelError
from rune_lsp.providers.error_reply import server_message
from rune_lsp.providers.openai import OpenAIModel
from rune_lsp.settings import Settings
from rune_lsp.tools.catalog import TOOLS
from tests.live.llama import MODEL_ALIAS
from tests.live.recordings import Recording, fold, load_manifest

MANIFEST = load_manifest()
CHATS = [r for r in MANIFEST.recordings if r.path.endswith("/chat/completions") and r.status == 200]
STREAMED = [r for r in CHATS if r.stream]
ASK = [Message(role="user", content="replayed")]
DEFINITIONS = {tool.spec.name: tool for tool in TOOLS}


class Pieces(httpx.AsyncByteStream):
    """A body delivered in the given pieces, as a slow socket would."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            yield piece


def split(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(body), *(c % (len(body) + 1) for c in cuts)})
    return [body[a:b] for a, b in itertools.pairwise(points)]


def transport(recording: Recording, cuts: list[int] | None = None) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        body = recording.body()
        headers = {"content-type": recording.content_type}
        if cuts is None:
            return httpx.Response(recording.status, content=body, headers=headers)
        return httpx.Response(recording.status, stream=Pieces(split(body, cuts)), headers=headers)

    return httpx.MockTransport(handle)


def provider(client: httpx.AsyncClient, recording: Recording) -> OpenAIModel:
    settings = Settings(provider="openai", base_url="http://127.0.0.1:9/v1", model=MODEL_ALIAS)
    return OpenAIModel(settings, client=client, stream=recording.stream)


async def replay(recording: Recording, cuts: list[int] | None = None) -> tuple[ModelTurn, str]:
    deltas: list[str] = []
    async with httpx.AsyncClient(transport=transport(recording, cuts)) as client:
        turn = await provider(client, recording).chat(ASK, [], on_delta=deltas.append)
    return turn, "".join(deltas)


def by_name(recordings: list[Recording]) -> list[object]:
    return [pytest.param(r, id=r.name) for r in recordings]


def expecting(what: str) -> list[object]:
    return by_name([r for r in CHATS if what in r.expect])


def test_the_recordings_cover_both_wire_shapes() -> None:
    assert STREAMED and any(not r.stream for r in CHATS)
    assert any("tool_calls" in r.expect for r in STREAMED)
    assert any("tool_calls" in r.expect and not r.stream for r in CHATS)


@pytest.mark.parametrize("recording", by_name(CHATS))
async def test_the_turn_is_what_the_server_sent(recording: Recording) -> None:
    expected = fold(recording)

    turn, deltas = await replay(recording)

    assert turn.text == expected.text
    assert deltas == turn.text
    assert [(c.name, c.arguments) for c in turn.tool_calls] == list(expected.calls)
    assert turn.finish_reason == expected.finish_reason
    # The whole prompt, and its part llama-server reused from its prompt cache (`cache_n`).
    assert turn.usage == Usage(
        prompt_tokens=expected.prompt_tokens,
        completion_tokens=expected.completion_tokens,
        cached_tokens=expected.cached_tokens,
    )


@pytest.mark.parametrize("recording", by_name(STREAMED))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cuts=st.lists(st.integers(min_value=0, max_value=1 << 16), max_size=12))
def test_a_stream_cut_anywhere_reads_the_same(recording: Recording, cuts: list[int]) -> None:
    whole, _ = asyncio.run(replay(recording))

    pieced, deltas = asyncio.run(replay(recording, cuts))

    assert pieced == whole
    assert deltas == whole.text


@pytest.mark.parametrize("recording", expecting("tool_calls"))
async def test_recorded_calls_become_calls_the_loop_can_dispatch(recording: Recording) -> None:
    turn, _ = await replay(recording)

    normalized = normalize_calls(turn.tool_calls, DEFINITIONS, IdAllocator(set(), 1))

    assert normalized
    for raw, item in zip(turn.tool_calls, normalized, strict=True):
        assert item.error is None, item.error
        assert item.call.name == raw.name and raw.name in DEFINITIONS
        assert item.call.arguments == json.loads(raw.arguments)


@pytest.mark.parametrize("recording", expecting("length"))
async def test_an_answer_cut_at_the_token_limit_is_still_a_turn(recording: Recording) -> None:
    turn, _ = await replay(recording)

    assert turn.finish_reason == "length"
    assert turn.text.strip()
    # Known to the loop as cut, not as a clean answer (issue 16).
    assert turn.cut is not None and turn.cut.reason == "length"
    assert turn.cut.chars == len(turn.text)


@pytest.mark.parametrize("recording", expecting("text_protocol_call"))
async def test_a_text_protocol_answer_holds_a_call(recording: Recording) -> None:
    turn, _ = await replay(recording)

    parsed = parse_text_turn(turn.text)

    assert parsed.calls
    assert all(call.name for call in parsed.calls)


async def test_a_refused_request_is_a_typed_error_quoting_the_server() -> None:
    recording = MANIFEST.named("bad_request")
    async with httpx.AsyncClient(transport=transport(recording)) as client:
        with pytest.raises(ModelError) as raised:
            await provider(client, recording).chat(ASK, [])

    assert recording.status >= 400
    assert server_message(recording.body().decode("utf-8")) in str(raised.value)


async def test_the_model_list_gives_the_context_the_server_serves() -> None:
    """Recorded: llama-server `-c 4096` for SmolLM2, trained on 8,192. Budgeting the history
    for 8,192 would send requests the server refuses instead of fitting them."""
    recording = MANIFEST.named("models")
    meta = json.loads(recording.body())["data"][0]["meta"]
    served, trained = meta["n_ctx"], meta["n_ctx_train"]
    assert served < trained
    async with httpx.AsyncClient(transport=transport(recording)) as client:
        model = provider(client, recording)
        names = await model.list_models()
        capabilities = await model.capabilities()

    assert MODEL_ALIAS in names
    assert capabilities.context_length == served
    assert capabilities.native_tools is True


# --- llama-server's dropped keep-alive connections ------------------------------------------

DROPPED = "Server disconnected without sending a response."


class DroppingServer:
    """Answers with a recording, after failing the first `drops` requests the way a kept-alive
    connection that the server had closed fails (httpcore's exception and words)."""

    def __init__(self, recording: Recording, drops: int, message: str = DROPPED) -> None:
        self.recording = recording
        self.drops = drops
        self.message = message
        self.seen: list[httpx.Request] = []

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self._handle))

    def _handle(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        if len(self.seen) <= self.drops:
            raise httpx.RemoteProtocolError(self.message, request=request)
        return httpx.Response(
            self.recording.status,
            content=self.recording.body(),
            headers={"content-type": self.recording.content_type},
        )


@pytest.mark.parametrize("name", ["tool_call_stream", "tool_call", "models"])
async def test_a_connection_closed_before_the_answer_is_sent_again(name: str) -> None:
    recording = MANIFEST.named(name)
    server = DroppingServer(recording, drops=1)
    async with server.client() as client:
        model = provider(client, recording)
        if name == "models":
            assert MODEL_ALIAS in await model.list_models()
        else:
            turn = await model.chat(ASK, [])
            assert turn.tool_calls and turn.tool_calls[0].name == "read_file"

    first, again = server.seen
    assert (first.method, first.url, first.content) == (again.method, again.url, again.content)


async def test_a_second_closed_connection_is_a_typed_error() -> None:
    server = DroppingServer(MANIFEST.named("tool_call_stream"), drops=2)
    async with server.client() as client:
        with pytest.raises(ModelError, match="ended before the answer was complete"):
            await provider(client, server.recording).chat(ASK, [])

    assert len(server.seen) == 2


async def test_other_protocol_errors_are_not_sent_again() -> None:
    server = DroppingServer(MANIFEST.named("tool_call_stream"), drops=1, message="bad header")
    async with server.client() as client:
        with pytest.raises(ModelError):
            await provider(client, server.recording).chat(ASK, [])

    assert len(server.seen) == 1
