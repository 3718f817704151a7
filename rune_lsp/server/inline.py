"""`textDocument/inlayHint` and `textDocument/codeLens`: pending hunks inline (mode B).

Registered statically, so clients see the providers in the `initialize` answer (Neovim 0.7
and Emacs ignore what they do not know; dynamic registration costs a round trip and is not
supported everywhere). Each answers only a client that advertises the feature, and answers
empty while no review is open: nothing here builds the review machinery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from rune_lsp.server.app import RuneServer

if TYPE_CHECKING:
    from rune_lsp.server.services import Services


def register(server: RuneServer, services: Services) -> None:
    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    def inlay_hints(ls: RuneServer, params: types.InlayHintParams) -> list[types.InlayHint]:
        desk = services.built_desk
        if desk is None or not desk.open or not ls.inlay_hint_support:
            return []
        return desk.inlay_hints(params.text_document.uri, params.range)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    def code_lenses(ls: RuneServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        desk = services.built_desk
        if desk is None or not desk.open or not ls.code_lens_support:
            return []
        return desk.code_lenses(params.text_document.uri)
