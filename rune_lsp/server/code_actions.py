"""`Rune: Fix this` on any range, plus the review actions of pending edits (mode B)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from rune_lsp.interface import DIAGNOSTIC_SOURCE, FIX_THIS
from rune_lsp.server.app import RuneServer

if TYPE_CHECKING:
    from rune_lsp.server.services import Services

TITLE = "Rune: Fix this"


def register(server: RuneServer, services: Services) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite]
        ),
    )
    def code_actions(ls: RuneServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        # No desk yet means no open review; building one would import the review machinery.
        desk = services.built_desk
        actions = [] if desk is None else desk.code_actions(uri, params.range)
        actions.append(fix_this_action(uri, params.range, params.context.diagnostics))
        return requested(actions, params.context.only)


def fix_this_action(
    uri: str, range_: types.Range, diagnostics: Sequence[types.Diagnostic]
) -> types.CodeAction:
    """quickfix when diagnostics overlap the range (carrying them), refactor.rewrite otherwise."""
    from rune_lsp.server.converters import unstructure  # builds a converter: not at start-up

    foreign = [d for d in diagnostics if d.source != DIAGNOSTIC_SOURCE]
    argument = {"uri": uri, "range": unstructure(range_), "diagnostics": unstructure(foreign)}
    return types.CodeAction(
        title=TITLE,
        kind=types.CodeActionKind.QuickFix if foreign else types.CodeActionKind.RefactorRewrite,
        diagnostics=foreign or None,
        command=types.Command(title=TITLE, command=FIX_THIS, arguments=[argument]),
    )


def requested(
    actions: Sequence[types.CodeAction], only: Sequence[str] | None
) -> list[types.CodeAction]:
    """The actions of the kinds the client asked for; kinds are hierarchical (`refactor`
    covers `refactor.rewrite`)."""
    if not only:
        return list(actions)
    return [
        action
        for action in actions
        if action.kind is not None
        and any(action.kind == kind or action.kind.startswith(f"{kind}.") for kind in only)
    ]
