"""Wire details that recorded answers do not cover: odd but legal shapes, error bodies,
and what the endpoint shows of itself."""

from __future__ import annotations

import socket

import pytest

from rune_lsp.loop.messages import Message, RawToolCall
from rune_lsp.providers import ollama_wire, openai_wire
from rune_lsp.providers.endpoint import Endpoint
from rune_lsp.providers.error_reply import _retry_after, refuses_tools, server_message


def _openai_turn(*chunks: dict[str, object]) -> openai_wire.TurnBuilder:
    builder = openai_wire.TurnBuilder()
    for chunk in chunks:
        builder.feed(openai_wire.Chunk.model_validate(chunk))
    builder.finish()
    return builder


def _delta(**delta: object) -> dict[str, object]:
    return {"choices": [{"delta": delta}]}


def test_fragments_without_index_follow_their_ids() -> None:
    builder = _openai_turn(
        _delta(tool_calls=[{"id": "a", "function": {"name": "read_file", "arguments": '{"pa'}}]),
        _delta(tool_calls=[{"function": {"arguments": 'th": "x"}'}}]),
        _delta(tool_calls=[{"id": "b", "function": {"name": "list_dir", "arguments": "{}"}}]),
    )

    assert builder.turn().tool_calls == (
        RawToolCall(id="a", name="read_file", arguments='{"path": "x"}'),
        RawToolCall(id="b", name="list_dir", arguments="{}"),
    )


def test_object_arguments_are_passed_on_as_sent() -> None:
    builder = _openai_turn(
        _delta(tool_calls=[{"index": 0, "id": "c", "function": {"name": "f", "arguments": {}}}])
    )

    assert builder.turn().tool_calls == (RawToolCall(id="c", name="f", arguments={}),)


def test_reasoning_field_is_thinking_too() -> None:
    builder = _openai_turn(_delta(reasoning="hmm"), _delta(content="ok"))

    assert (builder.turn().thinking, builder.turn().text) == ("hmm", "ok")


def test_a_stream_is_complete_with_done_or_finish_reason_only() -> None:
    assert not _openai_turn(_delta(content="partial")).complete
    assert _openai_turn({"choices": [{"delta": {}, "finish_reason": "stop"}]}).complete


def test_completion_without_choices_is_rejected() -> None:
    with pytest.raises(ValueError, match="without choices"):
        openai_wire.completion_turn(openai_wire.Chunk.model_validate({"choices": []}))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"error": {"message": "bad things", "type": "x"}}', "bad things"),
        ('{"error": "plain string"}', "plain string"),
        ('{"object": "error", "message": "The model `m` does not exist."}', "The model"),
        ('{"detail": "Not Found"}', "Not Found"),
        ("upstream connect error", "upstream connect error"),
        ("[1, 2]", "[1, 2]"),
    ],
)
def test_openai_error_bodies(body: str, message: str) -> None:
    assert server_message(body).startswith(message)


def test_openai_chunk_error_is_read_in_both_shapes() -> None:
    assert openai_wire.Chunk.model_validate({"error": "boom"}).error_message == "boom"
    assert openai_wire.Chunk.model_validate({"error": {"message": "bang"}}).error_message == "bang"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"error": "model \\"x\\" not found"}', 'model "x" not found'),
        ("404 page not found", "404 page not found"),
    ],
)
def test_ollama_error_bodies(body: str, message: str) -> None:
    assert server_message(body) == message


def test_ollama_tool_result_without_a_name_has_no_tool_name() -> None:
    message = Message(role="tool", content="out", tool_call_id="1")

    assert ollama_wire.wire_message(message) == {"role": "tool", "content": "out"}


def test_ollama_tags() -> None:
    data = {"models": [{"name": "qwen3:14b", "size": 1}, {"name": "llama3.2:3b"}]}

    assert ollama_wire.parse_tags(data) == ("qwen3:14b", "llama3.2:3b")


@pytest.mark.parametrize(
    "model_info",
    [
        {},
        {"general.architecture": "qwen3"},
        {"general.architecture": "x", "x.context_length": True},
    ],
)
def test_ollama_show_without_a_usable_context_length(model_info: dict[str, object]) -> None:
    data = {"capabilities": ["completion"], "model_info": model_info}

    assert ollama_wire.parse_show(data).context_length is None


def test_endpoint_hides_credentials_in_url_and_repr() -> None:
    endpoint = Endpoint(
        kind="ollama",
        base_url="https://bob:hunter2@models.example:11434",
        model="m",
        timeout=5,
        api_key="sk-secret",
    )

    assert endpoint.display_url == "https://models.example:11434"
    assert "hunter2" not in repr(endpoint)
    assert "sk-secret" not in repr(endpoint)
    assert endpoint.redact("key sk-secret here") == "key *** here"


def test_unknown_host_is_named_as_such() -> None:
    endpoint = Endpoint(kind="openai", base_url="http://nowhere.invalid/v1", model="m", timeout=5)
    try:
        raise socket.gaierror(-2, "Name or service not known")
    except socket.gaierror as cause:
        try:
            raise OSError("connect failed") from cause
        except OSError as exc:
            error = endpoint.unreachable(exc)

    assert "(unknown host)" in str(error)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("7", 7.0), ("0.5", 0.5), ("-1", None), ("Wed, 21 Oct 2015 07:28:00 GMT", None), (None, None)],
)
def test_retry_after_header(value: str | None, seconds: float | None) -> None:
    assert _retry_after(value) == seconds


@pytest.mark.parametrize(
    ("message", "refused"),
    [
        ("tools param requires --jinja flag", True),
        ("registry.ollama.ai/library/gemma:2b does not support tools", True),
        ('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser', True),
        ("Model x does not support function calling", True),
        ("tool_call_id call_1 not found in messages", False),
        ("messages must alternate between user and assistant", False),
    ],
)
def test_which_400s_refuse_tools(message: str, refused: bool) -> None:
    assert refuses_tools(message) is refused
