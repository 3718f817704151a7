"""Typed provider failures, each with a message that tells the user what to do next.

All of them are `ModelError`s, so the loop ends the run as `failed` with the message as its
error instead of crashing. Messages are built from an `Endpoint`'s redacted display URL and
never from request headers, so an API key cannot reach them.
"""

from __future__ import annotations

from rune_lsp.loop.ports import ModelError


class ProviderError(ModelError):
    """Base of every failure talking to a model server; `url` is what was called (redacted)."""

    def __init__(self, message: str, *, url: str) -> None:
        super().__init__(message)
        self.url = url


class ProviderUnreachableError(ProviderError):
    """Nothing answered at the configured address (refused, unknown host, network down)."""


class ModelNotFoundError(ProviderError):
    """The server is up but does not have the configured model."""

    def __init__(self, message: str, *, url: str, model: str, available: tuple[str, ...]) -> None:
        super().__init__(message, url=url)
        self.model = model
        self.available = available


class ProviderHTTPError(ProviderError):
    """The server answered with an HTTP error status; `server_message` is its own words."""

    def __init__(self, message: str, *, url: str, status: int, server_message: str) -> None:
        super().__init__(message, url=url)
        self.status = status
        self.server_message = server_message


class RateLimitedError(ProviderHTTPError):
    """HTTP 429: the server asks us to slow down; `retry_after` is in seconds when given."""

    def __init__(
        self,
        message: str,
        *,
        url: str,
        server_message: str,
        retry_after: float | None,
    ) -> None:
        super().__init__(message, url=url, status=429, server_message=server_message)
        self.retry_after = retry_after


class ProviderTimeoutError(ProviderError):
    """The call took longer than `requestTimeout` seconds."""

    def __init__(self, message: str, *, url: str, timeout: float) -> None:
        super().__init__(message, url=url)
        self.timeout = timeout


class StreamCutError(ProviderError):
    """The streamed answer stopped before the server said it was complete."""


class InvalidResponseError(ProviderError):
    """The server sent something that is not the JSON its wire format promises."""


class AnswerTooLargeError(ProviderError):
    """A single answer (a whole body, or one line of a stream) exceeded what rune will hold."""


class AnswerFailedError(ProviderError):
    """The server accepted the request and then reported an error in the middle of its answer."""

    def __init__(self, message: str, *, url: str, server_message: str) -> None:
        super().__init__(message, url=url)
        self.server_message = server_message
