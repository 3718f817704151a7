"""The OpenAI-compatible API as the double speaks it: `/v1/chat/completions`, `/v1/models`.

Streamed answers are SSE `data:` events: a role chunk, `reasoning_content` deltas (llama.cpp
style), content deltas, tool calls in fragments keyed by `index` (id and name first, then the
arguments string a few characters at a time), a finish chunk, an optional usage chunk, and
`data: [DONE]`. Errors are `{"error": {"message", "type", "param", "code"}}`.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from typing import Any

from tests.doubles.answers import Answer, arguments_json, endless_piece, json_answer, words
from tests.doubles.replies import (
    CutStream,
    Endless,
    FailMidStream,
    Hang,
    HttpError,
    InvalidJson,
    ModelInfo,
    ModelMissing,
    RateLimited,
    Reply,
    Scripted,
    ToolsRejected,
)

_CREATED = 1767225600
_ARGUMENT_PIECE = 7  # characters of arguments per streamed fragment
_ids = itertools.count(1)

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    429: "rate_limit_exceeded",
}


def error(
    status: int,
    message: str,
    code: str | int | None = None,
    headers: tuple[tuple[str, str], ...] = (),
) -> Answer:
    body = {
        "error": {
            "message": message,
            "type": _ERROR_TYPES.get(status, "server_error"),
            "param": None,
            "code": code if code is not None else status,
        }
    }
    return json_answer(body, status, headers)


def model_missing(model: str) -> Answer:
    return error(
        404,
        f"The model `{model}` does not exist or you do not have access to it.",
        "model_not_found",
    )


def tools_rejected() -> Answer:
    return error(400, "tools param requires --jinja flag")


def models(served: tuple[ModelInfo, ...]) -> Answer:
    data = []
    for m in served:
        entry: dict[str, Any] = {
            "id": m.name,
            "object": "model",
            "created": _CREATED,
            "owned_by": "llamacpp",
        }
        if m.context_length is not None:
            entry["meta"] = {"n_ctx_train": m.context_length, "n_vocab": 151936}
        data.append(entry)
    return json_answer({"object": "list", "data": data})


def chat(item: Scripted, *, model: str, stream: bool, include_usage: bool) -> Answer:
    match item:
        case Reply():
            return _reply(item, model=model, stream=stream, include_usage=include_usage)
        case HttpError(status=status, message=message):
            return error(status, message)
        case RateLimited(message=message, retry_after=retry_after):
            headers = (("Retry-After", str(retry_after)),) if retry_after is not None else ()
            return error(429, message, "rate_limit_exceeded", headers)
        case ModelMissing():
            return model_missing(model)
        case ToolsRejected():
            return tools_rejected()
        case CutStream(after_chunks=after, reply=reply):
            whole = _reply(reply, model=model, stream=stream, include_usage=include_usage)
            return replace(whole, cut_after=after)
        case InvalidJson(body=body):
            if stream:
                return Answer(
                    content_type="text/event-stream", chunks=(f"data: {body}\n\n".encode(),)
                )
            return Answer(body=body.encode())
        case Hang(after_chunks=after, reply=reply):
            whole = _reply(reply, model=model, stream=stream, include_usage=include_usage)
            return replace(whole, hang_after=after)
        case FailMidStream(message=message, after_chunks=after, reply=reply):
            if not stream:
                return error(500, message)
            whole = _reply(reply, model=model, stream=True, include_usage=include_usage)
            failure = _event_bytes(
                {"error": {"message": message, "type": "server_error", "code": 500}}
            )
            return Answer(
                content_type=whole.content_type,
                chunks=(*whole.chunks[:after], failure),
            )
        case Endless():
            return _endless(item, model=model, stream=stream)
    raise TypeError(f"cannot script {item!r}")


def _endless(endless: Endless, *, model: str, stream: bool) -> Answer:
    if not stream:
        # One completion whose content string never closes.
        start = b'{"id": "chatcmpl-endless", "choices": [{"index": 0, "message": {"content": "'
        return Answer(chunks=(start,), endless=lambda i: endless_piece(endless, i).encode())

    def piece(index: int) -> bytes:
        delta = {"content": endless_piece(endless, index)}
        return _event_bytes(
            {
                "id": "chatcmpl-endless",
                "object": "chat.completion.chunk",
                "created": _CREATED,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
            }
        )

    return Answer(content_type="text/event-stream", endless=piece)


def _reply(reply: Reply, *, model: str, stream: bool, include_usage: bool) -> Answer:
    completion_id = f"chatcmpl-{next(_ids)}"
    calls = [
        (c.id or f"call_{next(_ids)}", c.name, arguments_json(c.arguments))
        for c in reply.tool_calls
    ]
    finish = reply.finish_reason or ("tool_calls" if calls else "stop")
    usage = {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
    }
    if not stream:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.thinking:
            message["reasoning_content"] = reply.thinking
        if calls:
            message["tool_calls"] = [
                {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                for i, n, a in calls
            ]
        return json_answer(
            {
                "id": completion_id,
                "object": "chat.completion",
                "created": _CREATED,
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            }
        )

    def event(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": _CREATED,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }

    events: list[dict[str, Any]] = [event({"role": "assistant", "content": None})]
    events += [event({"reasoning_content": piece}) for piece in words(reply.thinking)]
    events += [event({"content": piece}) for piece in words(reply.text)]
    for index, (call_id, name, arguments) in enumerate(calls):
        events.append(
            event(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": ""},
                        }
                    ]
                }
            )
        )
        for start in range(0, len(arguments), _ARGUMENT_PIECE):
            piece = arguments[start : start + _ARGUMENT_PIECE]
            events.append(
                event({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            )
    events.append(event({}, finish))
    if include_usage:
        events.append(
            {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": _CREATED,
                "model": model,
                "choices": [],
                "usage": usage,
            }
        )
    chunks = [_event_bytes(e) for e in events]
    chunks.append(b"data: [DONE]\n\n")
    return Answer(
        content_type="text/event-stream", chunks=tuple(chunks), chunk_delay=reply.chunk_delay
    )


def _event_bytes(data: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(data)}\n\n".encode()
