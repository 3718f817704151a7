import pytest
from report import HELP, main, parse_pairs, render


def test_render_sorts_largest_first() -> None:
    text = render("Q1", {"south": 300, "north": 1200, "east": 700})
    lines = text.splitlines()
    assert lines[0] == "Q1"
    assert lines[1] == "=="
    assert [row.split()[0] for row in lines[2:]] == ["north", "east", "south", "total"]
    assert lines[-1].endswith("2,200")
    assert all(len(row) == 32 for row in lines[2:])


def test_parse_pairs() -> None:
    assert parse_pairs(["a=1", "b=2", "a=3"]) == {"a": 4, "b": 2}
    with pytest.raises(ValueError):
        parse_pairs(["a"])


def test_main_without_arguments_is_help() -> None:
    assert main([]) == HELP
