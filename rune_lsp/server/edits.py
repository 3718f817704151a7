"""`rune.acceptEdit`, `rune.rejectEdit`, `rune.showDiff`: review mode B from any client."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from rune_lsp.interface import ACCEPT_EDIT, REJECT_EDIT, SHOW_DIFF
from rune_lsp.server.app import RuneServer

if TYPE_CHECKING:
    from rune_lsp.server.review import ReviewDesk, Verdict
    from rune_lsp.server.services import Services


def register(server: RuneServer, services: Services) -> None:
    @server.command(ACCEPT_EDIT)
    async def accept(ls: RuneServer, *args: Any) -> dict[str, str]:
        return {"status": await _resolve(services.desk, ACCEPT_EDIT, args, "accept")}

    @server.command(REJECT_EDIT)
    async def reject(ls: RuneServer, *args: Any) -> dict[str, str]:
        return {"status": await _resolve(services.desk, REJECT_EDIT, args, "reject")}

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


async def _resolve(desk: ReviewDesk, command: str, args: tuple[Any, ...], verdict: Verdict) -> str:
    from rune_lsp.server.commands import EditIdArgs, parse  # pydantic: on first use

    request = parse(EditIdArgs, command, args)
    try:
        status = await desk.resolve(request.edit_id, verdict)
    except KeyError:
        raise _unknown(command, request.edit_id) from None
    if status is None:
        raise JsonRpcInvalidParams(
            f"{command}: edit {request.edit_id!r} was withdrawn: its run ended first"
        )
    return status


def _unknown(command: str, edit_id: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(f"{command}: no pending edit {edit_id!r} (already resolved?)")
