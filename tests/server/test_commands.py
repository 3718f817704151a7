"""Command arguments: typed when good, InvalidParams naming the field when not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from rune_lsp.server.commands import (
    EditIdArgs,
    EditVerdictArgs,
    FixThisArgs,
    HunkArgs,
    RunIdArgs,
    parse,
)

URI = "file:///ws/app.py"
END = {"line": 2, "character": 0}
DIAGNOSTIC = {
    "range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 9}},
    "message": "undefined name 'x'",
    "severity": 2,
    "source": "pyflakes",
    "code": 821,
}


def invalid(model: type[Any], *args: Any) -> str:
    with pytest.raises(JsonRpcInvalidParams) as caught:
        parse(model, "rune.test", args)
    return str(caught.value)


def test_fix_this_arguments_become_the_task() -> None:
    args = parse(
        FixThisArgs,
        "rune.fixThis",
        (
            {
                "uri": URI,
                "range": {"start": {"line": 3, "character": 0}, "end": {"line": 5, "character": 2}},
                "instruction": "rename x",
                "diagnostics": [DIAGNOSTIC],
                "somethingNew": True,  # newer clients may send more; it is ignored
            },
        ),
    )

    task = args.target(Path("/ws/app.py")).task("app.py", "text\n")

    assert (task.path, task.start_line, task.end_line) == ("app.py", 3, 5)
    assert task.instruction == "rename x"
    [diagnostic] = task.diagnostics
    assert diagnostic.line == 4 and diagnostic.message == "undefined name 'x'"
    assert (diagnostic.severity, diagnostic.source, diagnostic.code) == (
        "warning",
        "pyflakes",
        "821",
    )


def test_a_bare_uri_is_enough() -> None:
    args = parse(FixThisArgs, "rune.fixThis", ({"uri": URI},))

    assert args.range is None and args.diagnostics == ()
    assert args.target(Path("/ws/app.py")).task("app.py", "").start_line is None


def test_the_command_takes_exactly_one_argument_object() -> None:
    assert "rune.test takes one argument object, got 0" in invalid(FixThisArgs)
    assert "got 2" in invalid(RunIdArgs, {"runId": "a"}, {"runId": "b"})


@pytest.mark.parametrize(
    ("argument", "field"),
    [
        ({}, "uri"),
        ({"uri": ""}, "uri"),
        ({"uri": URI, "range": {"start": {"line": -1, "character": 0}}}, "range.start.line"),
        (
            {"uri": URI, "range": {"start": {"line": 0}, "end": {"line": 0, "character": 0}}},
            "range.start.character",
        ),
        ({"uri": URI, "instruction": 7}, "instruction"),
    ],
)
def test_bad_fix_this_arguments_name_the_field(argument: dict[str, Any], field: str) -> None:
    message = invalid(FixThisArgs, argument)

    assert message.startswith("rune.test: ")
    assert field in message


def test_a_malformed_diagnostic_is_invalid_params_too() -> None:
    message = invalid(FixThisArgs, {"uri": URI, "diagnostics": [{"message": "no range"}]})

    assert "diagnostics: " in message
    assert "required field missing @ diagnostics[0].range" in message


def test_an_argument_that_is_not_an_object_is_invalid_params() -> None:
    assert "rune.test" in invalid(RunIdArgs, "abc")


def test_run_and_edit_ids_use_the_wire_names() -> None:
    assert parse(RunIdArgs, "rune.cancel", ({"runId": "r1"},)).run_id == "r1"
    assert parse(EditIdArgs, "rune.acceptEdit", ({"editId": "e1"},)).edit_id == "e1"
    assert "runId" in invalid(RunIdArgs, {"run_id": "r1"})
    assert "editId" in invalid(EditIdArgs, {"editId": 3})


def test_hunk_arguments_use_the_wire_names_and_keep_the_reason() -> None:
    parsed = parse(
        HunkArgs,
        "rune.acceptHunk",
        ({"editId": "e1", "hunkId": 2, "lines": [1, 3], "reason": "keep it"},),
    )
    assert (parsed.edit_id, parsed.hunk_id, parsed.lines, parsed.reason) == (
        "e1",
        2,
        (1, 3),
        "keep it",
    )
    whole = parse(EditVerdictArgs, "rune.rejectEdit", ({"editId": "e1"},))
    assert (whole.edit_id, whole.reason) == ("e1", "")


@pytest.mark.parametrize(
    ("argument", "field"),
    [
        ({"editId": "e1"}, "hunkId"),
        ({"editId": "e1", "hunkId": 0}, "hunkId"),
        ({"editId": "e1", "hunkId": 1, "lines": []}, "lines"),
        ({"editId": "e1", "hunkId": 1, "lines": [0]}, "lines.0"),
        ({"editId": "e1", "hunkId": 1, "reason": 5}, "reason"),
    ],
)
def test_bad_hunk_arguments_name_the_field(argument: dict[str, Any], field: str) -> None:
    assert f"{field}:" in invalid(HunkArgs, argument)


@pytest.mark.parametrize(
    ("argument", "field"),
    [
        ({"editId": "e1", "hunkId": True}, "hunkId"),
        ({"editId": "e1", "hunkId": "2"}, "hunkId"),
        ({"editId": "e1", "hunkId": 3.0}, "hunkId"),
        ({"editId": "e1", "hunkId": 1, "lines": [True]}, "lines.0"),
        ({"editId": "e1", "hunkId": 1, "lines": ["1"]}, "lines.0"),
        ({"editId": "e1", "hunkId": 1, "lines": [2.0]}, "lines.0"),
        ({"editId": True}, "editId"),
    ],
)
def test_a_hunk_is_decided_only_by_a_json_integer(argument: dict[str, Any], field: str) -> None:
    # Issue 25, item 9: each of these used to be coerced and decided a hunk.
    assert f"{field}:" in invalid(HunkArgs, argument)


@pytest.mark.parametrize(
    ("model", "argument", "field"),
    [
        (RunIdArgs, {"runId": 7}, "runId"),
        (EditVerdictArgs, {"editId": "e1", "reason": False}, "reason"),
        (FixThisArgs, {"uri": URI, "instruction": 3}, "instruction"),
        (
            FixThisArgs,
            {"uri": URI, "range": {"start": {"line": "1", "character": 0}, "end": END}},
            "range.start.line",
        ),
        (
            FixThisArgs,
            {"uri": URI, "range": {"start": {"line": 1.0, "character": 0}, "end": END}},
            "range.start.line",
        ),
    ],
)
def test_every_command_argument_is_strictly_typed(
    model: type[Any], argument: dict[str, Any], field: str
) -> None:
    assert f"{field}:" in invalid(model, argument)
