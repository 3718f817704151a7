"""rune-lsp: a language server hosting an LLM tool-calling coding agent with per-edit review."""

# A literal, not importlib.metadata: that import alone costs ~85 ms of every editor start.
# pyproject.toml reads the package version from here.
__version__ = "0.1.0"
