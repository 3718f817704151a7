"""Small builders for what the scripted model says, and for reading what it was told."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.doubles.model_double import Call, ModelDouble, Reply


def calls(*items: tuple[str, dict[str, Any]], text: str = "") -> Reply:
    """One model turn making these tool calls."""
    return Reply(text=text, tool_calls=tuple(Call(name, args) for name, args in items))


def edit(path: str, old: str, new: str, text: str = "") -> Reply:
    return calls(("edit_file", {"path": path, "old_text": old, "new_text": new}), text=text)


def told(double: ModelDouble, index: int = -1) -> str:
    """The messages of one chat request as JSON text, to check what the model was told."""
    body = double.chat_requests[index].body
    return json.dumps(body.get("messages", body) if isinstance(body, dict) else body)


def disk(path: Path) -> str | None:
    """A file's text on disk, None when it does not exist (sync: tests are async)."""
    return path.read_text(encoding="utf-8") if path.exists() else None
