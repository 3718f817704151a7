"""`rune.keepLines`: the one per-line rule, for a client that reviews in its own UI."""

from __future__ import annotations

import pytest
from lsprotocol import types

from rune_lsp.interface import KEEP_LINES
from rune_lsp.review.hunks import kept_text
from tests.server.conftest import Launch

OLD = "a = 1\nb = 2\n"
NEW = "a = 10\nb = 20\nc = 30\n"


@pytest.mark.parametrize("lines", [[1], [3], [1, 3], [1, 2, 3, 4, 5], [2, 4, 5]])
async def test_keep_lines_answers_the_one_rule(launch: Launch, lines: list[int]) -> None:
    editor = await launch()

    answer = await editor.command(KEEP_LINES, {"oldText": OLD, "newText": NEW, "lines": lines})

    assert answer == {"text": kept_text(OLD, NEW, lines)}


def test_the_rule_removed_lines_first_then_added() -> None:
    assert kept_text(OLD, NEW, [1, 3]) == "b = 2\na = 10\n"
    assert kept_text(OLD, NEW, [1, 2, 3, 4, 5]) == NEW
    assert kept_text(OLD, NEW, [5]) == OLD + "c = 30\n"


@pytest.mark.parametrize(
    "argument",
    [
        {"oldText": OLD, "newText": NEW, "lines": [True]},
        {"oldText": OLD, "newText": NEW, "lines": ["2"]},
        {"oldText": OLD, "newText": NEW, "lines": [2.0]},
        {"oldText": OLD, "newText": NEW, "lines": []},
        {"oldText": OLD, "newText": NEW, "lines": [6]},
        {"oldText": OLD, "newText": 3, "lines": [1]},
        {"newText": NEW, "lines": [1]},
    ],
)
async def test_wrong_arguments_are_invalid_params(launch: Launch, argument: object) -> None:
    editor = await launch()

    error = await editor.error_of(editor.command(KEEP_LINES, argument))

    assert error.code == types.ErrorCodes.InvalidParams
    assert KEEP_LINES in str(error)
