"""Removing secrets (the API key) from anything the store writes.

A key can reach a run's data by many routes: the model reads a `.env` file, a command prints its
environment, the model repeats it in the answer. So scrubbing is applied to every string of the
stored model, not to chosen fields. Text in a run's data is often clipped, which can cut a key in
two; a long enough head or tail of a secret is masked too, so half a key never survives.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from types import UnionType
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel

MASK = "***"
#: Shortest piece of a secret masked on its own; shorter pieces carry too little to matter and
#: would mask ordinary text.
MIN_FRAGMENT = 8

M = TypeVar("M", bound=BaseModel)


class Scrubber:
    """Replaces each secret, and any head or tail of it of MIN_FRAGMENT+ characters, by MASK."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        variants: set[str] = set()
        for secret in secrets:
            if secret:
                variants.add(secret)
                # The secret as it appears inside JSON text (tool arguments are stored as JSON).
                variants.add(json.dumps(secret)[1:-1])
        self._secrets = tuple(sorted(variants))

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def text(self, value: str) -> str:
        spans = sorted(span for secret in self._secrets for span in _secret_spans(value, secret))
        if not spans:
            return value
        pieces: list[str] = []
        done = 0
        for start, end in spans:
            if end <= done:
                continue
            if start >= done:
                pieces.append(value[done:start])
                pieces.append(MASK)
            done = end
        pieces.append(value[done:])
        return "".join(pieces)

    def model(self, model: M) -> M:
        """A copy of `model` with every free-text string in it (dict keys included) scrubbed.

        Fields typed as a Literal are fixed vocabulary (statuses, kinds) and are left alone, so
        even a secret as short as a status word cannot make the copy invalid.
        """
        if not self._secrets:
            return model
        update = {
            name: self._any(getattr(model, name))
            for name, field in type(model).model_fields.items()
            if not _is_vocabulary(field.annotation)
        }
        return model.model_copy(update=update)

    def _any(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, BaseModel):
            return self.model(value)
        if isinstance(value, tuple):
            return tuple(self._any(item) for item in value)
        if isinstance(value, list):
            return [self._any(item) for item in value]
        if isinstance(value, dict):
            return {self._any(key): self._any(item) for key, item in value.items()}
        return value


def _is_vocabulary(annotation: Any) -> bool:
    """True for `Literal[...]`, optionally with None (`Literal[...] | None`)."""
    if get_origin(annotation) is Literal:
        return True
    members = [arg for arg in get_args(annotation) if arg is not type(None)]
    return (
        get_origin(annotation) in (Union, UnionType)
        and bool(members)
        and all(get_origin(arg) is Literal for arg in members)
    )


def _secret_spans(text: str, secret: str) -> Iterator[tuple[int, int]]:
    """Where `secret`, or a head or tail of it of MIN_FRAGMENT+ characters, occurs in `text`.

    Searching for the fixed head and tail with str.find keeps this linear in the text; a regular
    expression over every fragment was measured several times slower on large outputs.
    """
    if len(secret) <= MIN_FRAGMENT:
        found = text.find(secret)
        while found != -1:
            yield found, found + len(secret)
            found = text.find(secret, found + len(secret))
        return
    head = secret[:MIN_FRAGMENT]
    found = text.find(head)
    while found != -1:
        end = found + MIN_FRAGMENT
        while end < len(text) and end - found < len(secret) and text[end] == secret[end - found]:
            end += 1
        yield found, end
        found = text.find(head, found + 1)
    tail = secret[-MIN_FRAGMENT:]
    found = text.find(tail)
    while found != -1:
        start, matched = found, len(secret) - MIN_FRAGMENT
        while start > 0 and matched > 0 and text[start - 1] == secret[matched - 1]:
            start -= 1
            matched -= 1
        yield start, found + MIN_FRAGMENT
        found = text.find(tail, found + 1)
