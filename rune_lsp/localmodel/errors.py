"""Typed failures of the local provider; each message says what to do next."""

from __future__ import annotations


class LocalModelError(Exception):
    """The local model server could not be provisioned or started."""


class BuildToolsMissing(LocalModelError):
    """No C++ compiler, cmake or ninja: the message names the exact install command."""


class BuildFailed(LocalModelError):
    """pip, cmake or the compiler failed; the message quotes the log's end and names the log."""


class UnusableBinary(LocalModelError):
    """A llama-server binary that is missing, not executable, or too old for rune's flags."""


class DiskFull(LocalModelError):
    """Not enough free space for a download or the build."""


class PortTaken(LocalModelError):
    """The configured port on 127.0.0.1 is held by another program."""


class ServerFailed(LocalModelError):
    """The model server exited or never became healthy; the message quotes its log."""
