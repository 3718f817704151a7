"""`rune.setupLocal`: provision and start the local model now (`local_setup.LocalSetup`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rune_lsp.interface import SETUP_LOCAL
from rune_lsp.server.app import RuneServer

if TYPE_CHECKING:
    from rune_lsp.server.services import Services


def register(server: RuneServer, services: Services) -> None:
    @server.command(SETUP_LOCAL)
    async def setup_local(ls: RuneServer, *args: Any) -> dict[str, Any]:
        from rune_lsp.server.lifecycle import apply_settings

        def reapply() -> None:
            apply_settings(ls, ls.last_configuration)

        return await services.local.setup(services.runs.model, reapply)
