"""Raw calls are normalised and every call gets exactly one paired result.

See docs/interface.md#every-call-gets-one-result.
"""

from __future__ import annotations

from typing import Any

import pytest

from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.messages import Message
from rune_lsp.loop.normalize import IdAllocator, normalize_call, normalize_calls
from rune_lsp.loop.ports import ToolDefinition
from rune_lsp.loop.state import Finished, ToolOutcome

from .fakes import (
    DEFAULT_TOOLS,
    FakeExecutor,
    ScriptedModel,
    answer,
    assert_paired,
    call,
    edit,
    read,
    turn,
)

TOOLS: dict[str, ToolDefinition] = {tool.spec.name: tool for tool in DEFAULT_TOOLS}


def normalized(arguments: Any, name: str = "read_file") -> Any:
    return normalize_call(call(name, arguments), TOOLS, "call_1")


@pytest.mark.parametrize(
    "arguments",
    [
        {"path": "a.py", "start_line": 3},
        '{"start_line": 3, "path": "a.py"}',
        ' {"path":"a.py","start_line":3} ',
    ],
)
def test_object_and_json_string_arguments_normalise_alike(arguments: Any) -> None:
    result = normalized(arguments)
    assert result.error is None
    assert result.call.arguments == {"path": "a.py", "start_line": 3}
    assert result.signature == 'read_file{"path":"a.py","start_line":3}'
    assert result.arguments.path == "a.py"


@pytest.mark.parametrize("arguments", [None, "", "   "])
def test_absent_arguments_are_an_empty_object(arguments: Any) -> None:
    result = normalized(arguments, name="search")
    assert result.call.arguments == {}
    assert result.error is not None and "- pattern: Field required" in result.error


def test_malformed_json_says_so_and_shows_the_text() -> None:
    result = normalized('{"path": "a.py"')
    assert result.call.arguments == {}
    assert result.error is not None
    assert "not valid JSON" in result.error
    assert '{"path": "a.py"' in result.error


@pytest.mark.parametrize(
    ("arguments", "kind"),
    [
        ([1, 2], "an array"),
        (7, "a number"),
        ("[1]", "an array"),
        ('"x"', "a string"),
        (True, "a boolean"),
    ],
)
def test_non_object_arguments_are_named(arguments: Any, kind: str) -> None:
    result = normalized(arguments)
    assert result.error is not None
    assert f"must be a JSON object, got {kind}" in result.error


def test_schema_errors_list_field_and_problem() -> None:
    result = normalized({"start_line": "abc", "colour": 1})
    assert result.error is not None
    assert result.error.startswith("Error: invalid arguments for read_file:")
    assert "- path: Field required" in result.error
    assert "- start_line: Input should be a valid integer" in result.error
    assert "(got 'abc')" in result.error
    assert "- colour: Extra inputs are not permitted" in result.error
    assert "https://" not in result.error


def test_unknown_tool_lists_the_known_ones() -> None:
    result = normalized({"path": "a"}, name="delete_everything")
    assert result.error == (
        "Error: unknown tool 'delete_everything'. Known tools: edit_file, read_file, "
        "run_command, search. Call one of them by its exact name."
    )
    assert (normalized({}, name="").error or "").startswith(
        "Error: the tool call has no tool name. Known tools: edit_file"
    )


def test_mutating_flag_comes_from_the_spec() -> None:
    assert normalized({"path": "a", "old_text": "x", "new_text": "y"}, "edit_file").mutating
    assert not normalized({"path": "a"}).mutating


def test_missing_and_duplicate_ids_get_fresh_run_unique_ones() -> None:
    ids = IdAllocator.for_history(["call_1", "keep"], next_number=1)
    raws = [
        call("search", {"pattern": "a"}),
        call("search", {"pattern": "b"}, id="mine"),
        call("search", {"pattern": "c"}, id="mine"),
        call("search", {"pattern": "d"}, id="keep"),
        call("search", {"pattern": "e"}, id="x" * 100),
    ]
    result = [n.call.id for n in normalize_calls(raws, TOOLS, ids)]
    assert result == ["call_2", "mine", "call_3", "call_4", "call_5"]
    assert ids.next_number == 6


async def test_every_kind_of_bad_call_is_paired_in_call_order(executor: FakeExecutor) -> None:
    executor.refuse_at_prepare["/ws/secret.txt"] = ToolOutcome(
        status="denied", content="Access denied: /ws/secret.txt is outside allowed dirs."
    )
    model = ScriptedModel.of(
        turn(
            call("nope", {"x": 1}),
            call("read_file", "{broken"),
            call("read_file", {"start_line": 1}),
            edit("secret.txt"),
            read("ok.py", id="dup"),
            read("other.py", id="dup"),
        ),
        answer(),
    )
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    messages = outcome.state.messages
    assert_paired(messages)
    results = [m for m in messages if m.role == "tool"]
    assert [r.tool_call_id for r in results] == [
        "call_1",
        "call_2",
        "call_3",
        "call_4",
        "dup",
        "call_5",
    ]
    assert "unknown tool 'nope'" in results[0].content
    assert "not valid JSON" in results[1].content
    assert "- path: Field required" in results[2].content
    assert results[3].content.startswith("Access denied")
    assert [t.status for t in outcome.result.tool_calls] == [
        "failed",
        "failed",
        "failed",
        "denied",
        "ok",
        "ok",
    ]
    assert executor.executed == [
        ("read_file", {"path": "ok.py"}),
        ("read_file", {"path": "other.py"}),
    ]


async def test_ids_stay_unique_across_turns(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(turn(read("a", id="x")), turn(read("b", id="x")), answer())
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    ids = [c.id for m in outcome.state.messages for c in m.tool_calls]
    assert ids == ["x", "call_1"]


async def test_the_model_sees_the_error_so_it_can_repair_the_call(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(turn(call("read_file", {"file": "a"})), turn(read("a")), answer())
    await AgentLoop(model, executor, LoopConfig()).run("task")
    seen: Message = model.calls[1].messages[-1]
    assert seen.role == "tool"
    assert "- path: Field required" in seen.content
    assert "- file: Extra inputs are not permitted" in seen.content


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        (42, "a number (42)"),
        (["read_file"], 'an array (["read_file"])'),
        ({"x": 1}, 'an object ({"x":1})'),
    ],
)
def test_a_name_that_is_not_a_string_is_an_invalid_call(name: Any, shown: str) -> None:
    result = normalize_call(call(name, {"path": "a"}), TOOLS, "call_1")
    assert result.error == (
        f"Error: the tool name must be a string, got {shown}. Known tools: edit_file, "
        "read_file, run_command, search. Call one of them by its exact name."
    )
    assert result.arguments is None
    assert result.call.name == ""


async def test_a_call_whose_name_is_not_a_string_leaves_its_neighbour_running(
    executor: FakeExecutor,
) -> None:
    model = ScriptedModel.of(turn(call(42, {"path": "a"}), read("ok.py")), answer())
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "completed"
    assert_paired(outcome.state.messages)
    assert [t.status for t in outcome.result.tool_calls] == ["failed", "ok"]
    assert executor.executed == [("read_file", {"path": "ok.py"})]
