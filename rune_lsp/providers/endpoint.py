"""Where a provider talks to, and the user-facing sentences for everything that can go wrong.

Every error message is built here from the endpoint's display URL (credentials stripped) and
passed through `redact`, which is the one place the API key is kept out of what users and logs
see.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass

import httpx

from rune_lsp.loop.ports import ToolsUnsupportedError
from rune_lsp.providers.errors import (
    AnswerFailedError,
    AnswerTooLargeError,
    InvalidResponseError,
    ModelNotFoundError,
    ProviderHTTPError,
    ProviderTimeoutError,
    ProviderUnreachableError,
    RateLimitedError,
    StreamCutError,
)
from rune_lsp.settings import ProviderName, Settings
from rune_lsp.text_clip import shorten

_REDACTED = "***"
# Server messages are quoted for the user, not dumped: a proxy's HTML error page is long.
_MAX_QUOTE = 300


@dataclass(frozen=True, repr=False)
class Endpoint:
    kind: ProviderName
    base_url: str
    model: str
    timeout: float
    api_key: str | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> Endpoint:
        return cls(
            kind=settings.provider,
            base_url=settings.resolved_base_url.rstrip("/"),
            model=settings.model,
            timeout=settings.request_timeout,
            api_key=settings.api_key or None,
        )

    def __repr__(self) -> str:
        # Neither the key nor credentials inside the URL belong in a repr.
        return f"Endpoint(kind={self.kind!r}, url={self.display_url!r}, model={self.model!r})"

    def url(self, path: str) -> str:
        return self.base_url + path

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    @property
    def display_url(self) -> str:
        """The base URL without any user:password part, safe to show."""
        url = httpx.URL(self.base_url)
        if url.userinfo:
            url = url.copy_with(username=None, password=None)
        return self.redact(str(url).rstrip("/"))

    @property
    def server_name(self) -> str:
        return "Ollama" if self.kind == "ollama" else "the OpenAI-compatible server"

    @property
    def _subject(self) -> str:
        """`Ollama at URL` / `The OpenAI-compatible server at URL`, to start a sentence."""
        name = self.server_name
        return f"{name[0].upper()}{name[1:]} at {self.display_url}"

    def redact(self, text: str) -> str:
        if self.api_key:
            text = text.replace(self.api_key, _REDACTED)
        return text

    def quote(self, text: str) -> str:
        """A server's own words, bounded and redacted, for inclusion in a message."""
        return self.redact(shorten(" ".join(text.split()), _MAX_QUOTE))

    # --- failures ---------------------------------------------------------------------------

    def unreachable(self, exc: BaseException) -> ProviderUnreachableError:
        reason = _connect_reason(exc)
        if self.kind == "ollama":
            advice = "is it running? Start it with `ollama serve`."
        else:
            advice = "is it running? Start it, or set `baseUrl` to the address it listens on."
        message = (
            f"{self.server_name[0].upper()}{self.server_name[1:]} is not reachable at "
            f"{self.display_url} ({self.quote(reason)}): {advice}"
        )
        return ProviderUnreachableError(message, url=self.display_url)

    def timed_out(self) -> ProviderTimeoutError:
        message = (
            f"{self._subject} did not answer within {self.timeout:g} seconds "
            "(`requestTimeout`): the model may still be loading or be too slow for this "
            "machine. Raise `requestTimeout` or choose a smaller model."
        )
        return ProviderTimeoutError(message, url=self.display_url, timeout=self.timeout)

    def stream_cut(self, detail: str) -> StreamCutError:
        message = (
            f"The stream from {self.server_name} at {self.display_url} ended before the answer "
            f"was complete ({self.quote(detail)}). Try again; if it keeps happening, check the "
            "server's log."
        )
        return StreamCutError(message, url=self.display_url)

    def invalid_response(self, snippet: str) -> InvalidResponseError:
        expected = (
            "an Ollama server"
            if self.kind == "ollama"
            else "an OpenAI-compatible API (its address usually ends in /v1)"
        )
        message = (
            f"{self._subject} sent a response that is not the JSON it should be "
            f"({self.quote(snippet)!r}). Check that `baseUrl` points at {expected}."
        )
        return InvalidResponseError(message, url=self.display_url)

    def answer_too_large(self, limit: int) -> AnswerTooLargeError:
        message = (
            f"{self._subject} sent an answer larger than {limit:,} bytes in one piece; rune "
            "stopped reading it. Lower `maxOutputTokens`, or check the server's log."
        )
        return AnswerTooLargeError(message, url=self.display_url)

    def answer_failed(self, server_message: str) -> AnswerFailedError:
        message = (
            f"{self._subject} failed while answering: {self.quote(server_message)}. Try again; "
            "the server's log says more."
        )
        return AnswerFailedError(
            message, url=self.display_url, server_message=self.quote(server_message)
        )

    def http_error(
        self, status: int, server_message: str, *, retry_after: float | None = None
    ) -> ProviderHTTPError:
        quoted = self.quote(server_message) or "no message"
        if status == 429:
            wait = (
                f"Wait {retry_after:g} seconds and try again."
                if retry_after is not None
                else "Wait a moment and try again."
            )
            message = f"{self._subject} is rate limiting requests (HTTP 429: {quoted}). {wait}"
            return RateLimitedError(
                message, url=self.display_url, server_message=quoted, retry_after=retry_after
            )
        message = f"{self._subject} answered HTTP {status}: {quoted}.{self._status_hint(status)}"
        return ProviderHTTPError(
            message, url=self.display_url, status=status, server_message=quoted
        )

    def _status_hint(self, status: int) -> str:
        if status in (401, 403):
            if self.api_key:
                return " Check `apiKey`: the server did not accept it."
            return " The server wants an API key: set `apiKey`."
        if status in (404, 405):
            if self.kind == "openai":
                return (
                    " Check `baseUrl`: OpenAI-compatible APIs usually end in /v1, "
                    "e.g. http://127.0.0.1:8080/v1."
                )
            return " Check `baseUrl`: it should be Ollama's address, e.g. http://127.0.0.1:11434."
        if status >= 500:
            return " The server failed; its log says why. Try again."
        return ""

    def model_not_found(self, available: tuple[str, ...] | None) -> ModelNotFoundError:
        if available is None:
            listing = "(the list of available models could not be read)"
        else:
            listing = ", ".join(available) if available else "none"
        if self.kind == "ollama":
            message = (
                f"Model `{self.model}` is not installed in Ollama at {self.display_url}. "
                f"Installed: {listing}. Run `ollama pull {self.model}` or set `model` to one of "
                "the installed models."
            )
        else:
            message = (
                f"Model `{self.model}` is not served by the OpenAI-compatible server at "
                f"{self.display_url}. It serves: {listing}. Set `model` to one of those."
            )
        return ModelNotFoundError(
            self.redact(message),
            url=self.display_url,
            model=self.model,
            available=available or (),
        )

    def tools_unsupported(self, server_message: str) -> ToolsUnsupportedError:
        return ToolsUnsupportedError(
            f"Model `{self.model}` at {self.display_url} does not accept native tool calls "
            f"({self.quote(server_message)}); rune falls back to its text protocol."
        )


def _connect_reason(exc: BaseException) -> str:
    """The most specific reason in the exception chain, in a few words."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError):
            return "connection refused"
        if isinstance(seen, socket.gaierror):
            return "unknown host"
        seen = seen.__cause__ or seen.__context__
    return str(exc) or type(exc).__name__
