"""`rune.acceptEdit`, `rune.rejectEdit`, `rune.acceptHunk`, `rune.rejectHunk`, `rune.showDiff`:
review mode B from any client; `rune.keepLines`: the per-line rule for a client's own review."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from rune_lsp.interface import (
    ACCEPT_EDIT,
    ACCEPT_HUNK,
    KEEP_LINES,
    REJECT_EDIT,
    REJECT_HUNK,
    SHOW_DIFF,
)
from rune_lsp.server.app import RuneServer

if TYPE_CHECKING:
    from rune_lsp.review.hunk_review import Verdict
    from rune_lsp.server.desk import ReviewDesk
    from rune_lsp.server.services import Services


def register(server: RuneServer, services: Services) -> None:
    @server.command(ACCEPT_EDIT)
    async def accept(ls: RuneServer, *args: Any) -> dict[str, str]:
        return {"status": await _resolve(services.desk, ACCEPT_EDIT, args, "accept")}

    @server.command(REJECT_EDIT)
    async def reject(ls: RuneServer, *args: Any) -> dict[str, str]:
        return {"status": await _resolve(services.desk, REJECT_EDIT, args, "reject")}

    @server.command(ACCEPT_HUNK)
    async def accept_hunk(ls: RuneServer, *args: Any) -> dict[str, str]:
        return {"status": await _resolve_hunk(services.desk, ACCEPT_HUNK, args, "accept")}

    @server.command(REJECT_HUNK)
    async def reject_hunk(ls: RuneServer, *args: Any) -> dict[str, str]:
        return {"status": await _resolve_hunk(services.desk, REJECT_HUNK, args, "reject")}

    @server.command(SHOW_DIFF)
    def show_diff(ls: RuneServer, *args: Any) -> dict[str, str]:
        from rune_lsp.server.commands import EditIdArgs, parse  # pydantic: on first use

        request = parse(EditIdArgs, SHOW_DIFF, args)
        try:
            diff = services.desk.diff_of(request.edit_id)
        except KeyError:
            raise _unknown(SHOW_DIFF, request.edit_id) from None
        ls.tell(diff, types.MessageType.Info)
        return {"diff": diff}

    @server.command(KEEP_LINES)
    def keep_lines(ls: RuneServer, *args: Any) -> dict[str, str]:
        from rune_lsp.review.errors import LineSelectionError
        from rune_lsp.review.hunks import kept_text
        from rune_lsp.server.commands import KeepLinesArgs, parse  # pydantic: on first use

        request = parse(KeepLinesArgs, KEEP_LINES, args)
        try:
            return {"text": kept_text(request.old_text, request.new_text, request.lines)}
        except LineSelectionError as exc:
            raise JsonRpcInvalidParams(f"{KEEP_LINES}: the hunk has {exc}") from None


async def _resolve(desk: ReviewDesk, command: str, args: tuple[Any, ...], verdict: Verdict) -> str:
    from rune_lsp.server.commands import EditVerdictArgs, parse  # pydantic: on first use

    request = parse(EditVerdictArgs, command, args)
    try:
        status = await desk.resolve(request.edit_id, verdict, reason=request.reason)
    except KeyError:
        raise _unknown(command, request.edit_id) from None
    return _final(command, request.edit_id, status)


async def _resolve_hunk(
    desk: ReviewDesk, command: str, args: tuple[Any, ...], verdict: Verdict
) -> str:
    """`pending` while other hunks of the edit wait; the edit's status once it is decided."""
    from rune_lsp.review.errors import ReviewError
    from rune_lsp.server.commands import HunkArgs, parse  # pydantic: on first use

    request = parse(HunkArgs, command, args)
    if request.lines is not None and verdict == "reject":
        raise JsonRpcInvalidParams(f"{command}: `lines` is for accepting part of a hunk")
    try:
        status = await desk.resolve_hunk(
            request.edit_id,
            request.hunk_id,
            verdict,
            lines=request.lines,
            reason=request.reason,
        )
    except KeyError:
        raise _unknown(command, request.edit_id) from None
    except ReviewError as exc:  # no such pending hunk; lines it does not have
        raise JsonRpcInvalidParams(f"{command}: edit {request.edit_id!r}: {exc}") from None
    return _final(command, request.edit_id, status)


def _final(command: str, edit_id: str, status: str | None) -> str:
    if status is None:
        raise JsonRpcInvalidParams(
            f"{command}: edit {edit_id!r} was withdrawn: its run ended first"
        )
    return status


def _unknown(command: str, edit_id: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(f"{command}: no pending edit {edit_id!r} (already resolved?)")
