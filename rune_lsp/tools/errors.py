"""Typed failures of the tools; the executor turns each into one outcome the model reads."""

from __future__ import annotations


class ToolError(Exception):
    """A call that could not be carried out; its text tells the model what to do instead."""


class ToolDenied(ToolError):
    """A call the rules forbid (status `denied`, not `failed`)."""


class AccessDenied(ToolDenied):
    """A path outside the sandbox, or a blocked one; `str()` is the full message."""


class DocumentError(ToolError):
    """A document exists but cannot be used as text."""


class BinaryFileError(DocumentError):
    """The file holds NUL bytes or is not UTF-8: tools neither show nor rewrite it."""


class BlockedDocument(DocumentError, AccessDenied):
    """The file opened is one the rules never let tools read, reached by another name (a hard
    link to `~/.ssh/id_rsa`): a denial where a path is asked for, skipped by a search."""
