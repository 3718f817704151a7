"""What every tool function receives: the root, the sandbox, the documents and the output cap."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path

from rune_lsp.loop.context_budget import DEFAULT_OUTPUT_CAP
from rune_lsp.tools.documents import DocumentSource
from rune_lsp.tools.errors import AccessDenied, BlockedDocument, DocumentError, ToolError
from rune_lsp.tools.paths import display_path
from rune_lsp.tools.sandbox import Sandbox, validate_read_path, validate_write_path


@dataclass(frozen=True)
class ToolContext:
    root: Path  # absolute and resolved
    sandbox: Sandbox
    documents: DocumentSource
    output_cap: int = DEFAULT_OUTPUT_CAP

    def read_path(self, raw: str) -> Path:
        return validate_read_path(raw, self.sandbox, base=self.root)

    def write_path(self, raw: str) -> Path:
        return validate_write_path(raw, self.sandbox, base=self.root)

    def show(self, path: Path) -> str:
        return display_path(path, self.root)

    def ignore_base(self, path: Path) -> Path:
        """Where `.gitignore` files start to count for `path`: its deepest read root."""
        holders = [r for r in (self.root, *self.sandbox.read_roots) if path.is_relative_to(r)]
        return max(holders, key=lambda r: len(r.parts)) if holders else path

    def read_document(self, path: Path) -> str | None:
        """The document's text (buffer first), None when missing; unusable text is a ToolError."""
        try:
            return self.documents.read_text(path)
        except BlockedDocument as exc:
            raise AccessDenied(f"Access denied: {self.show(path)}: {exc}.") from exc
        except DocumentError as exc:
            raise ToolError(f"Cannot use {self.show(path)}: {exc}.") from exc

    def require_document(self, path: Path) -> str:
        """The document's text, or a ToolError that helps the model find the right path."""
        text = self.read_document(path)
        if text is not None:
            return text
        raise ToolError(self.not_found(path))

    def not_found(self, path: Path) -> str:
        shown = self.show(path)
        message = f"{shown} does not exist."
        try:
            siblings = os.listdir(path.parent)
        except OSError:
            return message + " Use list_dir to see what is there."
        close = difflib.get_close_matches(path.name, siblings, n=3, cutoff=0.6)
        if close:
            names = ", ".join(self.show(path.parent / name) for name in close)
            return f"{message} Similar names: {names}."
        return message + " Use list_dir or search to find the right path."
