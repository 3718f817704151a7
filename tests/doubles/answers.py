"""An HTTP answer as the double's handler sends it, and helpers both wire formats share."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.doubles.replies import Endless


@dataclass(frozen=True)
class Answer:
    """`body` goes out with a Content-Length; otherwise `chunks` go out chunk-encoded.

    `cut_after` closes the socket after that many chunks (or, for a body, after half of it);
    `hang_after` stops there and waits for the client to leave (0 with no chunks sent means
    not even the status line). `endless` makes chunk N after `chunks` for every N, for ever.
    """

    status: int = 200
    content_type: str = "application/json"
    body: bytes | None = None
    chunks: tuple[bytes, ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    chunk_delay: float = 0.0
    cut_after: int | None = None
    hang_after: int | None = None
    endless: Callable[[int], bytes] | None = None


def json_answer(data: Any, status: int = 200, headers: tuple[tuple[str, str], ...] = ()) -> Answer:
    return Answer(status=status, body=json.dumps(data).encode(), headers=headers)


def text_answer(text: str, status: int) -> Answer:
    return Answer(status=status, content_type="text/plain; charset=utf-8", body=text.encode())


def words(text: str | None) -> list[str]:
    """Text split the way models stream it: a word and its trailing space at a time."""
    return re.findall(r"\S+\s*|\s+", text) if text else []


def arguments_json(arguments: dict[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def endless_piece(endless: Endless, index: int) -> str:
    """The text of an endless stream's chunk `index`: the same, or ~1 KB never seen before."""
    if not endless.varying:
        return endless.text
    seed = hashlib.sha256(f"{endless.text}{index}".encode()).hexdigest()
    return " ".join(hashlib.sha256(f"{seed}{n}".encode()).hexdigest() for n in range(16)) + " "
