"""rune-lsp: a language server hosting an LLM tool-calling coding agent with per-edit review."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("rune-lsp")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
