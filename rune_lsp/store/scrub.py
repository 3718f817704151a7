"""Removing secrets (the API key, a password in `baseUrl`) from anything rune writes or says.

This is the one scrubber: for receipts and paused runs on disk (`Scrubber.model`), and for every
log line, progress line and editor message (`scrub_shown`, `scrub_logs`).

A key can reach a run's data by many routes: the model reads a `.env` file, a command prints its
environment, the model repeats it in the answer, or puts it in a command, a search pattern or a
path that progress then names. So scrubbing is applied to every string, not to chosen fields.
Text in a run's data is often clipped, which can cut a key in two; a long enough head or tail of
a secret is masked too, so half a key never survives.

What is only shown (logs, progress, messages) is also cleared of tokens rune was never told
about but that have a well-known shape (`sk-…`, `ghp_…`, `AKIA…`, a URL's password). Stored run
state is not: there the text is the user's data, which a resumed run may write back.

No pydantic at import time: the server installs the log scrubbing before the editor's
`initialize` is answered.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Iterator
from types import UnionType
from typing import TYPE_CHECKING, Any, Literal, TypeVar, Union, get_args, get_origin
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from pydantic import BaseModel

MASK = "***"
#: Shortest piece of a secret masked on its own; shorter pieces carry too little to matter and
#: would mask ordinary text.
MIN_FRAGMENT = 8
#: A URL password shorter than this is not masked wherever it occurs (it would mask ordinary
#: words); inside a URL it is masked by shape whatever its length.
MIN_PASSWORD = 4

M = TypeVar("M", bound="BaseModel")

#: Credentials with a shape of their own. A match is masked but for its prefix group (the URL up
#: to the password, the word `Bearer`).
_SHAPES = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    r"sk-[A-Za-z0-9_-]{16,}"  # OpenAI, Anthropic and the many APIs that copied them
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,}"  # GitHub
    r"|glpat-[A-Za-z0-9_-]{20,}"  # GitLab
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"  # Slack
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"  # AWS access key ids
    r"|hf_[A-Za-z0-9]{30,}"  # Hugging Face
    r"|AIza[0-9A-Za-z_-]{35}"  # Google API keys
    r")"
    # The password of `scheme://user:password@host`; the user name is kept.
    r"|(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*://[^\s/@:]*:)[^\s/@]+(?=@)"
    # A bearer token after `Authorization: Bearer` (or `Bearer` alone), whatever its shape.
    r"|(\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}",
)


def secrets_in(api_key: str | None, base_url: str | None) -> tuple[str, ...]:
    """What must never be shown of a configuration: the API key and the credentials in the
    base URL (the password, or a user name alone, which is then the token)."""
    found = [api_key] if api_key else []
    try:
        parts = urlsplit(base_url or "")
        password, username = parts.password, parts.username
    except ValueError:
        return tuple(found)
    credential = password if password is not None else username
    if credential and len(credential) >= MIN_PASSWORD:
        found.extend(dict.fromkeys((credential, unquote(credential))))
    return tuple(found)


class Scrubber:
    """Replaces each secret, and any head or tail of it of MIN_FRAGMENT+ characters, by MASK;
    with `shapes`, also every credential of a well-known shape (for what is only shown)."""

    def __init__(self, secrets: Iterable[str | None], *, shapes: bool = False) -> None:
        self._shapes = shapes
        variants: set[str] = set()
        for secret in secrets:
            if secret:
                variants.add(secret)
                # The secret as it appears inside JSON text (tool arguments are stored as JSON).
                variants.add(json.dumps(secret)[1:-1])
        self._secrets = tuple(sorted(variants))

    def __bool__(self) -> bool:
        return bool(self._secrets) or self._shapes

    def text(self, value: str) -> str:
        value = self._known(value)
        if self._shapes:
            value = _SHAPES.sub(_masked_shape, value)
        return value

    def found(self, value: str) -> frozenset[str]:
        """The pieces of `value` that `text` masks."""
        pieces = {value[start:end] for start, end in self._spans(value)}
        if self._shapes:
            pieces.update(
                match.group(0)[len(_prefix(match)) :] for match in _SHAPES.finditer(value)
            )
        return frozenset(pieces)

    def _spans(self, value: str) -> list[tuple[int, int]]:
        return sorted(span for secret in self._secrets for span in _secret_spans(value, secret))

    def _known(self, value: str) -> str:
        spans = self._spans(value)
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
        from pydantic import BaseModel  # loaded by then: a stored model is being scrubbed

        if isinstance(value, BaseModel):
            return self.model(value)
        if isinstance(value, tuple):
            return tuple(self._any(item) for item in value)
        if isinstance(value, list):
            return [self._any(item) for item in value]
        if isinstance(value, dict):
            return {self._any(key): self._any(item) for key, item in value.items()}
        return value


def _masked_shape(match: re.Match[str]) -> str:
    return _prefix(match) + MASK


def _prefix(match: re.Match[str]) -> str:
    """What a shape's match keeps: the URL up to the password, the word `Bearer`."""
    return match.group(1) or match.group(2) or ""


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


class _Shown(logging.Filter):
    """The process's scrubber for what is shown. As a log filter it masks every record that
    reaches a handler it is installed on: the message, its arguments and any traceback (an
    exception's text may quote a URL or a header)."""

    def __init__(self) -> None:
        super().__init__()
        self.scrubber = Scrubber((), shapes=True)

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = self.scrubber.text(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.scrubber.text(record.exc_text)
        return True


_SHOWN = _Shown()


def scrub_shown(text: str) -> str:
    """`text` as it may be shown: in a log, a progress line, an editor message, the terminal."""
    return _SHOWN.scrubber.text(text)


def hidden_when_shown(text: str) -> frozenset[str]:
    """The pieces of `text` that `scrub_shown` masks: a change that adds one would be shown
    masked and land unmasked, so the tools refuse it (docs/interface.md#secrets-in-a-change)."""
    return _SHOWN.scrubber.found(text)


def use_secrets(secrets: Iterable[str | None]) -> None:
    """What `scrub_shown` and the logs mask from now on besides every well-known token shape:
    the current configuration's secrets (`secrets_in`), replacing those given before."""
    _SHOWN.scrubber = Scrubber(secrets, shapes=True)


def scrub_logs() -> None:
    """Every handler of the root logger masks from now on what `scrub_shown` masks."""
    for handler in logging.getLogger().handlers:
        if _SHOWN not in handler.filters:
            handler.addFilter(_SHOWN)
