"""Shared inputs for the review tests."""

from __future__ import annotations

from rune_lsp.loop.state import PreparedEdit


def numbered(count: int, *, prefix: str = "line", ending: str = "\n") -> str:
    return "".join(f"{prefix} {i}{ending}" for i in range(count))


def edit_of(
    old_text: str | None,
    new_text: str,
    *,
    edit_id: str = "e1",
    tool: str = "edit_file",
    reason: str = "",
) -> PreparedEdit:
    return PreparedEdit(
        edit_id=edit_id,
        call_id="call-1",
        tool="write_file" if tool == "write_file" else "edit_file",
        path="/ws/src/app.py",
        old_text=old_text,
        new_text=new_text,
        reason=reason,
    )
