"""`Rune: Fix this`: its kind, the diagnostics it carries, and the client's `only` filter."""

from __future__ import annotations

from lsprotocol import types

from rune_lsp.server.code_actions import TITLE, fix_this_action, requested
from rune_lsp.server.commands import FixThisArgs, parse

URI = "file:///ws/app.py"
RANGE = types.Range(
    start=types.Position(line=2, character=0), end=types.Position(line=4, character=3)
)


def diagnostic(source: str | None) -> types.Diagnostic:
    return types.Diagnostic(range=RANGE, message=f"from {source}", source=source)


def test_a_quickfix_over_diagnostics_of_other_servers() -> None:
    foreign, unnamed, ours = diagnostic("pyright"), diagnostic(None), diagnostic("rune")

    action = fix_this_action(URI, RANGE, [foreign, ours, unnamed])

    assert action.title == TITLE
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.diagnostics == [foreign, unnamed]
    assert action.command is not None and action.command.command == "rune.fixThis"
    # The argument is what rune.fixThis parses, with the diagnostics it was offered for.
    args = parse(FixThisArgs, "rune.fixThis", tuple(action.command.arguments or ()))
    assert args.uri == URI
    assert args.range is not None and (args.range.start.line, args.range.end.line) == (2, 4)
    assert [d.message for d in args.lsp_diagnostics()] == ["from pyright", "from None"]


def test_a_rewrite_when_no_diagnostic_of_another_server_overlaps() -> None:
    for diagnostics in ([], [diagnostic("rune")]):
        action = fix_this_action(URI, RANGE, diagnostics)

        assert action.kind == types.CodeActionKind.RefactorRewrite
        assert action.diagnostics is None


def test_only_filters_by_kind_hierarchically() -> None:
    quickfix = fix_this_action(URI, RANGE, [diagnostic("pyright")])
    rewrite = fix_this_action(URI, RANGE, [])
    actions = [quickfix, rewrite]

    assert requested(actions, None) == actions
    assert requested(actions, []) == actions
    assert requested(actions, ["quickfix"]) == [quickfix]
    assert requested(actions, ["refactor"]) == [rewrite]
    assert requested(actions, ["refactor.rewrite", "quickfix"]) == actions
    assert requested(actions, ["source", "refactor.extract"]) == []
    assert requested(actions, ["quick"]) == []  # a prefix of a word is not a parent kind
