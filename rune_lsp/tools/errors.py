"""Typed failures of the tools; the executor turns each into one outcome the model reads."""

from __future__ import annotations

from pathlib import Path


class ToolError(Exception):
    """A call that could not be carried out; its text tells the model what to do instead."""


class ToolDenied(ToolError):
    """A call the rules forbid (status `denied`, not `failed`)."""


class AccessDenied(ToolDenied):
    """A path outside the sandbox, or a blocked one; `str()` is the full message."""

    def __init__(self, message: str, *, raw: object) -> None:
        super().__init__(message)
        self.raw = raw


class DocumentError(ToolError):
    """A document exists but cannot be used as text."""

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(message)
        self.path = path


class BinaryFileError(DocumentError):
    """The file holds NUL bytes or is not UTF-8: tools neither show nor rewrite it."""
