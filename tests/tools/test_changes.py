from __future__ import annotations

import pytest

from rune_lsp.tools.changes import describe_change


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (None, "a\nb\n", "Created f.py (2 lines)."),
        ("a\nb\nc\n", "a\nB\nc\n", "Updated f.py: changed line 2 (previously 2)."),
        ("a\nb\nc\n", "a\nx\ny\nz\nc\n", "Updated f.py: changed lines 2-4 (previously 2)."),
        ("a\nb\nc\n", "a\nc\n", "Updated f.py: removed line 2."),
        ("a\nc\n", "a\nb1\nb2\nc\n", "Updated f.py: inserted lines 2-3."),
        ("same\n", "same\n", "f.py is unchanged."),
    ],
)
def test_describe_change(old: str | None, new: str, expected: str) -> None:
    assert describe_change("f.py", old, new) == expected
