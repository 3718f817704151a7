"""How an applied change is described to the model: which lines it touched."""

from __future__ import annotations

from rune_lsp.tools.text import count_lines


def describe_change(shown: str, old_text: str | None, new_text: str) -> str:
    if old_text is None:
        return f"Created {shown} ({count_lines(new_text)} lines)."
    if old_text == new_text:
        return f"{shown} is unchanged."
    old_lines = old_text.split("\n")
    new_lines = new_text.split("\n")
    prefix = 0
    limit = min(len(old_lines), len(new_lines))
    while prefix < limit and old_lines[prefix] == new_lines[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < limit - prefix
        and old_lines[len(old_lines) - 1 - suffix] == new_lines[len(new_lines) - 1 - suffix]
    ):
        suffix += 1
    removed = len(old_lines) - prefix - suffix
    added = len(new_lines) - prefix - suffix
    first = prefix + 1
    if added == 0:
        span = f"removed line{_s(removed)} {_range(first, removed)}"
    elif removed == 0:
        span = f"inserted line{_s(added)} {_range(first, added)}"
    else:
        span = (
            f"changed line{_s(added)} {_range(first, added)} (previously {_range(first, removed)})"
        )
    return f"Updated {shown}: {span}."


def _range(first: int, count: int) -> str:
    return str(first) if count == 1 else f"{first}-{first + count - 1}"


def _s(count: int) -> str:
    return "" if count == 1 else "s"
