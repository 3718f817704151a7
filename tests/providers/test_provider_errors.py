"""Every failure a model server can cause becomes a typed `ModelError` that says what to do,
for both wire formats, and none of them ever shows the API key."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from rune_lsp.loop.messages import Message, ToolSpec
from rune_lsp.loop.ports import ModelError, ToolsUnsupportedError
from rune_lsp.providers.errors import (
    AnswerFailedError,
    InvalidResponseError,
    ModelNotFoundError,
    ProviderHTTPError,
    ProviderTimeoutError,
    ProviderUnreachableError,
    RateLimitedError,
    StreamCutError,
)
from rune_lsp.providers.transport import HttpProvider
from tests.doubles.model_double import (
    CutStream,
    FailMidStream,
    Hang,
    HttpError,
    InvalidJson,
    ModelDouble,
    ModelMissing,
    RateLimited,
    Reply,
    ToolsRejected,
)

Connect = Callable[..., HttpProvider]
ASK = [Message(role="user", content="hello")]


async def _fail(model: HttpProvider, **chat: Any) -> ModelError:
    with pytest.raises(ModelError) as info:
        await model.chat(ASK, chat.get("tools", []))
    return info.value


async def test_connection_refused_names_the_url_and_what_to_do(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    model = connect(provider)
    url = double.base_url(provider)
    double.refuse_connections()

    error = await _fail(model)

    assert isinstance(error, ProviderUnreachableError)
    if provider == "ollama":
        assert str(error) == (
            f"Ollama is not reachable at {url} (connection refused): is it running? "
            "Start it with `ollama serve`."
        )
    else:
        assert str(error).startswith(
            f"The OpenAI-compatible server is not reachable at {url} (connection refused)"
        )
        assert "`baseUrl`" in str(error)


async def test_unknown_model_is_named_with_what_the_server_offers(
    connect: Connect, provider: str
) -> None:
    error = await _fail(connect(provider, model="missing:7b"))

    assert isinstance(error, ModelNotFoundError)
    assert error.model == "missing:7b"
    assert error.available == ("qwen3:14b",)
    assert "`missing:7b`" in str(error)
    assert "qwen3:14b" in str(error)
    if provider == "ollama":
        assert "`ollama pull missing:7b`" in str(error)


async def test_model_missing_answer_from_chat(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    double.script(ModelMissing())

    error = await _fail(connect(provider))

    assert isinstance(error, ModelNotFoundError)
    assert error.available == ("qwen3:14b",)


async def test_server_error_carries_the_server_message(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    double.script(HttpError(500, "CUDA error: out of memory"))

    error = await _fail(connect(provider))

    assert isinstance(error, ProviderHTTPError)
    assert error.status == 500
    assert "answered HTTP 500: CUDA error: out of memory." in str(error)
    assert "Try again" in str(error)


async def test_wrong_base_url_path_suggests_checking_it(connect: Connect) -> None:
    model = connect("openai", base_url=connect("ollama").endpoint.base_url)  # no /v1

    error = await _fail(model)

    assert isinstance(error, ProviderHTTPError)
    assert error.status == 404
    assert "usually end in /v1" in str(error)


@pytest.mark.parametrize(
    ("retry_after", "advice"), [(7, "Wait 7 seconds"), (None, "Wait a moment")]
)
async def test_rate_limit(
    double: ModelDouble, connect: Connect, provider: str, retry_after: int | None, advice: str
) -> None:
    double.script(RateLimited("slow down please", retry_after=retry_after))

    error = await _fail(connect(provider))

    assert isinstance(error, RateLimitedError)
    assert error.retry_after == (None if retry_after is None else float(retry_after))
    assert "rate limiting requests (HTTP 429: slow down please)" in str(error)
    assert advice in str(error)


async def test_a_silent_server_times_out_after_request_timeout(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    double.script(Hang())

    error = await _fail(connect(provider, request_timeout=0.3))

    assert isinstance(error, ProviderTimeoutError)
    assert error.timeout == 0.3
    assert "did not answer within 0.3 seconds (`requestTimeout`)" in str(error)


async def test_request_timeout_bounds_the_whole_call_not_each_chunk(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    double.script(Reply(text="one two three four five six", chunk_delay=0.15))

    error = await _fail(connect(provider, request_timeout=0.4))

    assert isinstance(error, ProviderTimeoutError)


@pytest.mark.parametrize("stream", [True, False])
async def test_stream_cut_mid_way(
    double: ModelDouble, connect: Connect, provider: str, stream: bool
) -> None:
    double.script(CutStream(after_chunks=2))

    error = await _fail(connect(provider, stream=stream))

    assert isinstance(error, StreamCutError)
    assert f"at {double.base_url(provider)} ended before the answer was complete" in str(error)


@pytest.mark.parametrize("stream", [True, False])
async def test_invalid_json(
    double: ModelDouble, connect: Connect, provider: str, stream: bool
) -> None:
    double.script(InvalidJson("<html><body>502 Bad Gateway</body></html>"))

    error = await _fail(connect(provider, stream=stream))

    assert isinstance(error, InvalidResponseError)
    assert "502 Bad Gateway" in str(error)
    assert "Check that `baseUrl` points at" in str(error)


async def test_error_reported_inside_the_stream(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    double.script(FailMidStream("model runner has unexpectedly stopped", after_chunks=2))

    error = await _fail(connect(provider))

    assert isinstance(error, AnswerFailedError)
    assert "failed while answering: model runner has unexpectedly stopped" in str(error)


async def test_rejected_key_says_to_check_api_key(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    double.api_key = "the-right-one"

    error = await _fail(connect(provider, api_key="a-wrong-key"))

    assert isinstance(error, ProviderHTTPError)
    assert error.status == 401
    assert "Check `apiKey`" in str(error)


async def test_missing_key_says_to_set_api_key(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    double.api_key = "the-right-one"

    error = await _fail(connect(provider))

    assert isinstance(error, ProviderHTTPError)
    assert "set `apiKey`" in str(error)


# --- the API key never leaks ---------------------------------------------------------------

KEY = "sk-very-secret-4242"
NOOP = ToolSpec(name="noop", description="Does nothing.", parameters={"type": "object"})


@dataclass(frozen=True)
class Scenario:
    name: str
    expected: type[Exception]
    prepare: Callable[[ModelDouble], None] = lambda double: None
    settings: dict[str, Any] = field(default_factory=dict)
    tools: bool = False
    echoed: bool = False  # the server quotes the key back, so redaction must have happened


def _script(*items: Any) -> Callable[[ModelDouble], None]:
    return lambda double: double.script(*items)


def _wrong_key(double: ModelDouble) -> None:
    double.api_key = "another-key"  # the double then quotes the key it got, as servers do


SCENARIOS = [
    Scenario("refused", ProviderUnreachableError, lambda double: double.refuse_connections()),
    Scenario("unknown model", ModelNotFoundError, settings={"model": "nope:1b"}),
    Scenario("server error", ProviderHTTPError, _script(HttpError(500, f"bad {KEY}")), echoed=True),
    Scenario("rate limit", RateLimitedError, _script(RateLimited(f"quota of {KEY}")), echoed=True),
    Scenario("timeout", ProviderTimeoutError, _script(Hang()), {"request_timeout": 0.3}),
    Scenario("cut", StreamCutError, _script(CutStream(after_chunks=1))),
    Scenario(
        "invalid json", InvalidResponseError, _script(InvalidJson(f"<p>{KEY}</p>")), echoed=True
    ),
    Scenario("mid-stream", AnswerFailedError, _script(FailMidStream(f"crash {KEY}")), echoed=True),
    Scenario("unauthorized", ProviderHTTPError, _wrong_key, echoed=True),
    Scenario("tools refused", ToolsUnsupportedError, _script(ToolsRejected()), tools=True),
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
async def test_api_key_never_appears_in_errors_or_logs(
    double: ModelDouble,
    connect: Connect,
    provider: str,
    scenario: Scenario,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    double.api_key = KEY
    scenario.prepare(double)
    model = connect(provider, api_key=KEY, **scenario.settings)
    tools = [NOOP] if scenario.tools else []

    with pytest.raises(scenario.expected) as info:
        await model.chat(ASK, tools)

    texts = [str(info.value), repr(info.value), repr(model), caplog.text]
    texts += [str(arg) for arg in info.value.args]
    cause: BaseException | None = info.value.__cause__ or info.value.__context__
    while cause is not None:
        texts += [str(cause), repr(cause)]
        cause = cause.__cause__ or cause.__context__
    assert not [text for text in texts if KEY in text]
    if scenario.echoed:
        assert "***" in str(info.value)
