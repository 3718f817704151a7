"""Inlay hints and code lenses of a pending hunk, where it sits in the document now."""

from __future__ import annotations

from rune_lsp.review import compute_hunks
from rune_lsp.review.inline import HINT_LIMIT, code_lenses, inlay_hints

OLD = "a = 1\nb = 2\nc = 3\n"


def hints(old: str, new: str, encoding: str | None = None) -> list[tuple[int, int, str]]:
    [hunk] = compute_hunks(old, new)
    found = inlay_hints(hunk, old, encoding)
    return [(h.position.line, h.position.character, str(h.label)) for h in found]


def test_a_replaced_line_shows_its_replacement_at_its_end() -> None:
    assert hints(OLD, OLD.replace("b = 2", "b = 20")) == [(1, 5, "→ b = 20")]


def test_extra_added_lines_are_counted_and_removed_lines_say_so() -> None:
    assert hints(OLD, OLD.replace("b = 2\n", "b = 20\nb2 = 0\nb3 = 0\n")) == [
        (1, 5, "→ b = 20 (+2 more)")
    ]
    assert hints(OLD, "a = 1\n") == [(1, 5, "→ (removed)"), (2, 5, "→ (removed)")]


def test_a_pure_insertion_is_shown_after_the_line_before_it() -> None:
    assert hints(OLD, OLD.replace("b = 2\n", "b = 2\nnew = 0\nmore = 1\n")) == [
        (1, 5, "+ new = 0 (+1 more)")
    ]
    [first] = inlay_hints(compute_hunks(OLD, "top\n" + OLD)[0], OLD, None)
    assert (first.position.line, first.position.character, first.label) == (0, 0, "+ top")
    assert first.padding_right and not first.padding_left


def test_hint_positions_are_in_the_negotiated_encoding_and_labels_are_bounded() -> None:
    old = "😀 = 1\nz\n"
    assert hints(old, old.replace("😀 = 1", "x = 1"), "utf-8") == [(0, 8, "→ x = 1")]
    assert hints(old, old.replace("😀 = 1", "x = 1")) == [(0, 6, "→ x = 1")]
    [(_, _, label)] = hints(OLD, OLD.replace("b = 2", "b = " + "9" * 200))
    assert len(label) == len("→ ") + HINT_LIMIT and label.endswith("...")


def test_lenses_sit_above_the_hunk_and_run_the_hunk_commands() -> None:
    [hunk] = compute_hunks(OLD, OLD.replace("c = 3", "c = 30"))
    lenses = code_lenses("e1", hunk, OLD, None)
    assert [(lens.range.start.line, lens.range.end.line) for lens in lenses] == [(2, 2), (2, 2)]
    commands = [lens.command for lens in lenses if lens.command]
    assert [(c.title, c.command, c.arguments) for c in commands] == [
        ("Accept", "rune.acceptHunk", [{"editId": "e1", "hunkId": 1}]),
        ("Reject", "rune.rejectHunk", [{"editId": "e1", "hunkId": 1}]),
    ]
