"""Issue 16: tool calls written as text are still tool calls, in native turns too.

The outputs below are the shapes model families print (Qwen2.5-Coder, Hermes, Llama 3.x,
Mistral, Qwen3-Coder); the first is verbatim from qwen2.5-coder-1.5b given native tools.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rune_lsp.answers.calls.text import MAX_BARE_ATTEMPTS, parse_text_turn
from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.messages import ModelTurn
from rune_lsp.loop.state import Finished
from tests.loop.fakes import (
    TOOL_NAMES,
    FakeExecutor,
    ScriptedModel,
    answer,
    assert_paired,
    read,
    turn,
)

QWEN_CODER_15B = (
    '```json\n{"name": "run_command", "arguments": {"command": "python -m pytest -q"}}\n```'
)
PYTEST = ("run_command", {"command": "python -m pytest -q"})
READ_APP = ("read_file", {"path": "app.py"})
FIX_ADD = {"path": "app.py", "old_text": "    return a - b\n", "new_text": "    return a + b\n"}


@pytest.fixture
def executor() -> FakeExecutor:
    return FakeExecutor()


def _calls(text: str) -> list[tuple[str, object]]:
    return [(c.name, c.arguments) for c in parse_text_turn(text, TOOL_NAMES).calls]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(QWEN_CODER_15B, [PYTEST], id="qwen2.5-coder fenced json"),
        pytest.param(
            "Let me run the tests first.\n\n" + QWEN_CODER_15B + "\n\nThis will show the failure.",
            [PYTEST],
            id="fenced json inside prose",
        ),
        pytest.param(
            '<tool_call>\n{"name": "read_file", "arguments": {"path": "app.py"}}\n</tool_call>',
            [READ_APP],
            id="hermes / qwen tags",
        ),
        pytest.param(
            '{"name": "read_file", "parameters": {"path": "app.py"}}',
            [READ_APP],
            id="llama 3.1 bare json with parameters",
        ),
        pytest.param(
            '<|python_tag|>{"type": "function", "name": "read_file", "parameters": '
            '{"path": "app.py"}}<|eom_id|>',
            [READ_APP],
            id="llama 3.2 python tag",
        ),
        pytest.param(
            '<function=read_file>{"path": "app.py"}</function>',
            [READ_APP],
            id="llama 3.1 function tag",
        ),
        pytest.param(
            "<tool_call>\n<function=edit_file>\n<parameter=path>\napp.py\n</parameter>\n"
            "<parameter=old_text>\n    return a - b\n\n</parameter>\n<parameter=new_text>\n"
            "    return a + b\n\n</parameter>\n</function>\n</tool_call>",
            [("edit_file", FIX_ADD)],
            id="qwen3-coder xml parameters",
        ),
        pytest.param(
            '[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "app.py"}}, '
            '{"name": "run_command", "arguments": {"command": "python -m pytest -q"}}]',
            [READ_APP, PYTEST],
            id="mistral array",
        ),
        pytest.param('[TOOL_CALLS]read_file[ARGS]{"path": "app.py"}', [READ_APP], id="mistral v11"),
        pytest.param(
            '```json\n{"type": "function", "function": {"name": "read_file", '
            '"arguments": "{\\"path\\": \\"app.py\\"}"}}\n```',
            [("read_file", '{"path": "app.py"}')],
            id="openai shape printed, arguments as a string",
        ),
        pytest.param(
            '```\n{"name": "read_file", "arguments": {"path": "app.py"}}\n'
            '{"name": "run_command", "arguments": {"command": "python -m pytest -q"}}\n```',
            [READ_APP, PYTEST],
            id="two calls in one fence",
        ),
    ],
)
def test_calls_as_model_families_print_them(text: str, expected: list[object]) -> None:
    assert _calls(text) == expected


def test_the_text_around_calls_stays_visible_without_markers_or_empty_fences() -> None:
    text = (
        "The test fails because add subtracts.\n```xml\n"
        '<tool_call>{"name": "edit_file", "arguments": {"path": "app.py", "old_text": "-", '
        '"new_text": "+"}}</tool_call>\n```\n\n\n\nThat fixes it.'
    )
    parsed = parse_text_turn(text, TOOL_NAMES)
    assert [c.name for c in parsed.calls] == ["edit_file"]
    assert parsed.visible == "The test fails because add subtracts.\n\nThat fixes it."


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            'Your package.json:\n```json\n{"name": "my-app", "version": "1.0.0"}\n```',
            id="config with a name",
        ),
        pytest.param(
            '```json\n{"name": "python", "arguments": {"code": "print(1)"}}\n```',
            id="a tool that was not offered",
        ),
        pytest.param(
            'I could call {"name": "deploy", "parameters": {"env": "prod"}} but will not.',
            id="bare json naming no offered tool",
        ),
        pytest.param("The fix:\n```python\ndef add(a, b):\n    return a + b\n```", id="code block"),
        pytest.param('{"name": "read_file"}', id="no arguments: a record, not a call"),
    ],
)
def test_json_that_is_not_a_call_stays_text(text: str) -> None:
    parsed = parse_text_turn(text, TOOL_NAMES)
    assert parsed.calls == ()
    assert parsed.visible == text.strip()


def test_a_call_beside_other_json_is_taken_and_the_rest_stays() -> None:
    text = '```json\n{"name": "read_file", "arguments": {"path": "a"}}\n{"debug": true}\n```'
    parsed = parse_text_turn(text, TOOL_NAMES)
    assert [(c.name, c.arguments) for c in parsed.calls] == [("read_file", {"path": "a"})]
    assert '{"debug": true}' in parsed.visible


def test_quotes_a_model_forgot_to_escape_are_refused_not_guessed() -> None:
    # Recorded from Qwen2.5-Coder-1.5B: the docstring's triple quotes copied into old_text. The
    # JSON is broken; the call is read as meant, with its text as arguments, so its result says
    # why (tests/providers/test_recorded_coder.py: "must refuse these (and say so), not guess").
    recorded = (
        Path(__file__).parents[1] / "loop" / "fixtures" / "qwen2.5-coder-1.5b_coached_call.txt"
    )
    [call] = parse_text_turn(recorded.read_text(), TOOL_NAMES).calls
    assert call.name == "edit_file"
    assert isinstance(call.arguments, str) and '"""Return the sum' in call.arguments


def test_a_call_in_a_tilde_fence_is_read_like_one_in_backticks() -> None:
    # One fence parser (answers.code.fences) for every reader: ~~~ is a fence too.
    text = 'Reading it:\n~~~json\n{"name": "read_file", "arguments": {"path": "a"}}\n~~~\nthen fix.'
    parsed = parse_text_turn(text, TOOL_NAMES)
    assert [(c.name, c.arguments) for c in parsed.calls] == [("read_file", {"path": "a"})]
    assert parsed.visible == "Reading it:\n\nthen fix."


def test_a_fence_emptied_of_its_tagged_call_leaves_no_empty_fence() -> None:
    text = (
        'Now:\n```\n<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>\n```'
    )
    parsed = parse_text_turn(text, TOOL_NAMES)
    assert len(parsed.calls) == 1 and parsed.visible == "Now:"


def test_a_fenced_call_beyond_repair_is_still_a_call_that_hears_why() -> None:
    text = '```json\n{"name": "edit_file", "arguments": {"path": "a", "old_text": "x", y"}\n```'
    [call] = parse_text_turn(text, TOOL_NAMES).calls
    assert call.name == "edit_file" and isinstance(call.arguments, str)


def test_a_tagged_call_is_a_call_whatever_it_names() -> None:
    # The tag says the model meant a call: its result ("unknown tool ...") tells it the names.
    assert _calls('<tool_call>{"name": "python", "arguments": {"code": "1"}}</tool_call>') == [
        ("python", {"code": "1"})
    ]


def test_a_long_broken_answer_costs_a_bounded_number_of_tries() -> None:
    text = '{"name": "read_file", "arguments": {"path": "a' * (10 * MAX_BARE_ATTEMPTS)
    assert parse_text_turn(text, TOOL_NAMES).calls == ()


@pytest.mark.parametrize(
    "call",
    [
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>\n',
        '{"name": "read_file", "arguments": {"path": "a.py"}} ',
    ],
    ids=["tagged", "bare"],
)
def test_an_answer_at_the_stream_cap_full_of_calls_is_read_whole(call: str) -> None:
    # A hostile model's 1,000,000 characters of calls: every one is read (the calls-per-turn
    # cap decides later what runs). That it takes linear time is measured by
    # `python -m bench.timed_checks`: a timed ratio here failed on a loaded machine.
    count = 1_000_000 // len(call)
    parsed = parse_text_turn(call * count, TOOL_NAMES)
    assert len(parsed.calls) == count


# --- in a run with native tools --------------------------------------------------------------


async def test_a_native_turn_with_a_call_written_as_text_runs_it(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(
        ModelTurn(text="I'll read it.\n" + '{"name": "read_file", "parameters": {"path": "a.py"}}'),
        answer("The bug is on line 2."),
    )
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")

    assert isinstance(outcome, Finished) and outcome.result.outcome == "completed"
    assert executor.executed == [("read_file", {"path": "a.py"})]
    assert_paired(outcome.state.messages)
    assistant = outcome.state.messages[2]
    assert assistant.content == "I'll read it."
    assert [c.name for c in assistant.tool_calls] == ["read_file"]
    # The next request carries the call and its result natively.
    assert model.calls[1].messages[-1].role == "tool"


async def test_text_calls_get_the_same_validation_and_dedup(executor: FakeExecutor) -> None:
    same = '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>'
    bad = '<tool_call>{"name": "read_file", "arguments": {"file": "a.py"}}</tool_call>'
    model = ScriptedModel.of(ModelTurn(text=f"{same}\n{same}\n{bad}"), answer())
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")

    assert isinstance(outcome, Finished)
    assert executor.executed == [("read_file", {"path": "a.py"})]  # the duplicate ran once
    results = [m for m in outcome.state.messages if m.role == "tool"]
    assert len(results) == 3
    assert "Identical to call" in results[1].content
    assert "invalid arguments for read_file" in results[2].content
    assert_paired(outcome.state.messages)


async def test_native_calls_win_over_text_that_looks_like_one(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(turn(read("a.py"), text=QWEN_CODER_15B), answer())
    await AgentLoop(model, executor, LoopConfig()).run("task")
    assert executor.executed == [("read_file", {"path": "a.py"})]


async def test_qwen_coder_fenced_call_in_a_native_turn_is_proposed_for_review(
    executor: FakeExecutor,
) -> None:
    outcome = await AgentLoop(
        ScriptedModel.of(ModelTurn(text=QWEN_CODER_15B)), executor, LoopConfig()
    ).run("task")

    # run_command is mutating: it waits for the user's decision like a native call would.
    assert outcome.kind == "paused"
    assert [p.tool for p in outcome.state.turn.pending] == ["run_command"]
