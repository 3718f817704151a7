"""`rune.fixThis`, `rune.cancel`, `rune.resume`: thin handlers over the run manager.

The argument models (pydantic) and the run machinery are imported by the handlers, on the
first command, not when the server starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from rune_lsp.interface import CANCEL, FIX_THIS, RESUME
from rune_lsp.server.app import RuneServer

if TYPE_CHECKING:
    from rune_lsp.loop.records import RunResult
    from rune_lsp.server.services import Services


def register(server: RuneServer, services: Services) -> None:
    @server.command(FIX_THIS)
    async def fix_this(ls: RuneServer, *args: Any) -> dict[str, Any]:
        from rune_lsp.runner.assembly import TaskUnreadableError
        from rune_lsp.server.commands import FixThisArgs, parse
        from rune_lsp.server.documents import path_of

        request = parse(FixThisArgs, FIX_THIS, args)
        path = path_of(request.uri)
        if path is None:
            raise JsonRpcInvalidParams(f"{FIX_THIS}: uri must be a file: URI, got {request.uri}")
        try:
            result = await services.runs.fix(request.target(path), ls.protocol.msg_id)
        except TaskUnreadableError as exc:
            raise JsonRpcInvalidParams(f"{FIX_THIS}: {exc}") from None
        return wire(result)

    @server.command(CANCEL)
    def cancel(ls: RuneServer, *args: Any) -> dict[str, bool]:
        from rune_lsp.server.commands import RunIdArgs, parse

        request = parse(RunIdArgs, CANCEL, args)
        runs = services.built_runs
        return {"cancelled": runs is not None and runs.cancel(request.run_id)}

    @server.command(RESUME)
    async def resume(ls: RuneServer, *args: Any) -> dict[str, Any]:
        from rune_lsp.server.commands import RunIdArgs, parse
        from rune_lsp.store.ownership import RunOwnedElsewhereError

        request = parse(RunIdArgs, RESUME, args)
        runs = services.runs
        if request.run_id in runs.active:
            raise JsonRpcInvalidParams(f"{RESUME}: run {request.run_id} is still running")
        try:
            result = await runs.resume(request.run_id, ls.protocol.msg_id)
        except KeyError:
            raise JsonRpcInvalidParams(
                f"{RESUME}: no interrupted run {request.run_id} in {ls.settings.resolved_state_dir}"
            ) from None
        except ValueError as exc:  # InvalidRunIdError: an id that is no safe file name
            raise JsonRpcInvalidParams(f"{RESUME}: {exc}") from None
        except RunOwnedElsewhereError as exc:
            raise JsonRpcInvalidParams(f"{RESUME}: {exc}") from None
        return wire(result)


def wire(result: RunResult) -> dict[str, Any]:
    """The run result as docs/interface.md#run-result spells it."""
    return result.model_dump(mode="json", by_alias=True)
