"""What an HTTP error answer says: the server's own words, a refusal of `tools`, Retry-After.

The provider turns these into the typed errors of `rune_lsp.providers.errors`; here is only
the reading of the answer, the same for both wire formats.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import httpx

# Servers word a refused `tools` field in many ways, but always name tools (or function
# calling) and a refusal; a 400 about, say, a bad `tool_call_id` is no refusal of tools.
_TOOLS_WORDING = re.compile(r"\btools?\b|tool[_ ]?choice|tool[_ ]?call|function[_ -]?call", re.I)
_REFUSAL_WORDING = re.compile(
    r"not support|unsupported|requires|not enabled|not available|not allowed|--jinja", re.I
)

#: An error body is only quoted (a few hundred characters): no need to hold a large one.
_MAX_ERROR_BYTES = 1 << 20


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error answer, its body read up to `_MAX_ERROR_BYTES`."""

    status: int
    text: str
    retry_after: float | None


async def read_error_reply(response: httpx.Response) -> ErrorReply:
    """The error answer, its body read only as far as it is ever quoted."""
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > _MAX_ERROR_BYTES:
            break  # quoted only in part anyway
    return ErrorReply(
        status=response.status_code,
        text=body.decode(response.encoding or "utf-8", errors="replace"),
        retry_after=_retry_after(response.headers.get("retry-after")),
    )


def server_message(body: str) -> str:
    """The message out of an error body: `{"error": {"message"}}`, `{"error": "..."}`
    (Ollama, llama.cpp), `{"message"}` (vLLM) or `{"detail"}` (FastAPI); other bodies are
    quoted as they came."""
    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()
    if not isinstance(data, dict):
        return body.strip()
    error = data.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    for value in (error, data.get("message"), data.get("detail")):
        if isinstance(value, str) and value:
            return value
    return body.strip()


def refuses_tools(message: str) -> bool:
    return bool(_TOOLS_WORDING.search(message) and _REFUSAL_WORDING.search(message))


def _retry_after(value: str | None) -> float | None:
    # Only the seconds form: an HTTP date would need a clock comparison for little benefit.
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None
