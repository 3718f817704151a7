"""Ollama's native API as the double speaks it: `/api/chat`, `/api/show`, `/api/tags`.

Shapes follow what Ollama sends: NDJSON chunks with `message.content` / `message.thinking`,
tool calls whole in one chunk with object arguments, a final `done: true` chunk with
`done_reason` and token counts, and `{"error": "..."}` bodies for failures.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from tests.doubles.answers import Answer, endless_piece, json_answer, words
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

_CREATED = "2026-01-01T00:00:00.000000Z"


def error(status: int, message: str, headers: tuple[tuple[str, str], ...] = ()) -> Answer:
    return json_answer({"error": message}, status, headers)


def model_missing(model: str) -> Answer:
    return error(404, f'model "{model}" not found, try pulling it first')


def tools_rejected(model: str) -> Answer:
    return error(400, f"registry.ollama.ai/library/{model} does not support tools")


def thinking_rejected(model: str) -> Answer:
    return error(400, f'"{model}" does not support thinking')


def tags(models: tuple[ModelInfo, ...]) -> Answer:
    return json_answer(
        {
            "models": [
                {
                    "name": m.name,
                    "model": m.name,
                    "modified_at": _CREATED,
                    "size": 522653767,
                    "digest": "7df6b6e09427a769808717c0a93cadc4ae99ed4eb8bf5ca557c90846becea435",
                    "details": {"format": "gguf", "family": m.architecture},
                }
                for m in models
            ]
        }
    )


def show(model: ModelInfo) -> Answer:
    model_info: dict[str, Any] = {"general.architecture": model.architecture}
    if model.context_length is not None:
        model_info[f"{model.architecture}.context_length"] = model.context_length
    return json_answer(
        {
            "modelfile": f"FROM {model.name}",
            "template": "{{ .Prompt }}",
            "details": {"format": "gguf", "family": model.architecture},
            "model_info": model_info,
            "capabilities": list(model.capabilities),
            "modified_at": _CREATED,
        }
    )


def chat(item: Scripted, *, model: str, stream: bool, think: bool) -> Answer:
    match item:
        case Reply():
            return _reply(item, model=model, stream=stream, think=think)
        case HttpError(status=status, message=message):
            return error(status, message)
        case RateLimited(message=message, retry_after=retry_after):
            headers = (("Retry-After", str(retry_after)),) if retry_after is not None else ()
            return error(429, message, headers)
        case ModelMissing():
            return model_missing(model)
        case ToolsRejected():
            return tools_rejected(model)
        case CutStream(after_chunks=after, reply=reply):
            whole = _reply(reply, model=model, stream=stream, think=think)
            return replace(whole, cut_after=after)
        case InvalidJson(body=body):
            if stream:
                return Answer(content_type="application/x-ndjson", chunks=(body.encode() + b"\n",))
            return Answer(body=body.encode())
        case Hang(after_chunks=after, reply=reply):
            whole = _reply(reply, model=model, stream=stream, think=think)
            return replace(whole, hang_after=after)
        case FailMidStream(message=message, after_chunks=after, reply=reply):
            if not stream:
                return error(500, message)
            whole = _reply(reply, model=model, stream=True, think=think)
            failure = json.dumps({"error": message}).encode() + b"\n"
            return Answer(
                content_type=whole.content_type,
                chunks=(*whole.chunks[:after], failure),
            )
        case Endless():
            return _endless(item, model=model, stream=stream)
    raise TypeError(f"cannot script {item!r}")


def _endless(endless: Endless, *, model: str, stream: bool) -> Answer:
    if not stream:
        # One answer whose content string never closes.
        start = f'{{"model": "{model}", "message": {{"role": "assistant", "content": "'.encode()
        return Answer(chunks=(start,), endless=lambda i: endless_piece(endless, i).encode())

    def piece(index: int) -> bytes:
        chunk = _chunk(model, {"content": endless_piece(endless, index)})
        return json.dumps(chunk).encode() + b"\n"

    return Answer(content_type="application/x-ndjson", endless=piece)


def _reply(reply: Reply, *, model: str, stream: bool, think: bool) -> Answer:
    thinking, content = reply.thinking, reply.text
    if thinking and not think:
        # Without `think`, a thinking model's reasoning arrives inline in the content.
        content = f"<think>{thinking}</think>\n\n{content}"
        thinking = None
    calls = [_call(i, c.name, c.arguments, c.id) for i, c in enumerate(reply.tool_calls)]
    final = {
        "done": True,
        "done_reason": reply.finish_reason or "stop",
        "total_duration": 812000000,
        "load_duration": 21000000,
        "prompt_eval_count": reply.prompt_tokens,
        "prompt_eval_duration": 120000000,
        "eval_count": reply.completion_tokens,
        "eval_duration": 650000000,
    }
    if not stream:
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if thinking:
            message["thinking"] = thinking
        if calls:
            message["tool_calls"] = calls
        return json_answer({"model": model, "created_at": _CREATED, "message": message, **final})
    chunks: list[dict[str, Any]] = []
    for piece in words(thinking):
        chunks.append(_chunk(model, {"content": "", "thinking": piece}))
    for piece in words(content):
        chunks.append(_chunk(model, {"content": piece}))
    if calls:
        chunks.append(_chunk(model, {"content": "", "tool_calls": calls}))
    chunks.append({**_chunk(model, {"content": ""}), **final})
    return Answer(
        content_type="application/x-ndjson",
        chunks=tuple(json.dumps(c).encode() + b"\n" for c in chunks),
        chunk_delay=reply.chunk_delay,
    )


def _chunk(model: str, message: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": model,
        "created_at": _CREATED,
        "message": {"role": "assistant", **message},
        "done": False,
    }


def _call(index: int, name: str, arguments: object, call_id: str | None) -> dict[str, Any]:
    call: dict[str, Any] = {"function": {"index": index, "name": name, "arguments": arguments}}
    if call_id is not None:
        call["id"] = call_id
    return call
