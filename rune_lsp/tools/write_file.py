"""`write_file`: create or replace a whole file; computes the change, writes nothing."""

from __future__ import annotations

from pathlib import Path

from rune_lsp.loop.state import PreparedEdit, ToolOutcome
from rune_lsp.tools.context import ToolContext
from rune_lsp.tools.errors import ToolError
from rune_lsp.tools.schemas import WriteFileArgs


def prepare_write(
    ctx: ToolContext, args: WriteFileArgs, *, call_id: str, edit_id: str, reason: str
) -> PreparedEdit | ToolOutcome:
    path = ctx.write_path(args.path)
    shown = ctx.show(path)
    if path.is_dir() and not ctx.documents.is_open(path):
        raise ToolError(f"{shown} is a directory; give the path of a file inside it.")
    current = ctx.read_document(path)
    if current is None:
        _check_creatable(ctx, path)
    elif current == args.content:
        return ToolOutcome(
            status="ok", content=f"{shown} already has exactly this content; nothing to change."
        )
    return PreparedEdit(
        edit_id=edit_id,
        call_id=call_id,
        tool="write_file",
        path=str(path),
        old_text=current,
        new_text=args.content,
        reason=reason,
    )


def _check_creatable(ctx: ToolContext, path: Path) -> None:
    """Missing parents are created on apply, but a file standing where a directory must go
    would only fail then: say so now."""
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise ToolError(
            f"Cannot create {ctx.show(path)}: {ctx.show(ancestor)} is a file, not a directory."
        )
