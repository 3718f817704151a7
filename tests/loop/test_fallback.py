"""Native tool calls, and the text protocol for models without them.

See docs/interface.md#tool-calling.
"""

from __future__ import annotations

from rune_lsp.answers.calls.prompts import protocol_prompt
from rune_lsp.answers.calls.text import parse_text_turn
from rune_lsp.answers.table import GUIDANCE_TAIL
from rune_lsp.loop import AgentLoop, LoopConfig, ModelError, ToolsUnsupportedError
from rune_lsp.loop.fallback import render_for_text_protocol
from rune_lsp.loop.messages import Message, ModelTurn, ToolCall
from rune_lsp.loop.state import Finished

from .fakes import DEFAULT_TOOLS, FakeExecutor, ScriptedModel, answer, read, turn

READ_A = '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>'


def test_tagged_calls_are_parsed_in_order_and_the_rest_is_visible() -> None:
    text = (
        "Let me look.\n"
        + READ_A
        + '\n<tool_call>{"name": "search", "arguments": {"pattern": "x"}}</tool_call>\nThanks.'
    )
    parsed = parse_text_turn(text)
    assert [(c.name, c.arguments) for c in parsed.calls] == [
        ("read_file", {"path": "a.py"}),
        ("search", {"pattern": "x"}),
    ]
    assert parsed.visible == "Let me look.\n\nThanks."


def test_a_fenced_json_call_is_accepted() -> None:
    text = 'Reading:\n```json\n{"name": "read_file", "arguments": {"path": "b.py"}}\n```\n'
    parsed = parse_text_turn(text)
    assert [(c.name, c.arguments) for c in parsed.calls] == [("read_file", {"path": "b.py"})]
    assert parsed.visible == "Reading:"


def test_a_fenced_block_that_is_not_a_call_stays_visible() -> None:
    text = 'Config:\n```json\n{"debug": true}\n```'
    parsed = parse_text_turn(text)
    assert parsed.calls == ()
    assert parsed.visible == text


def test_a_broken_tagged_block_is_still_a_call_carrying_its_text() -> None:
    parsed = parse_text_turn('<tool_call>{"name": "read_file", "arguments": {"path": }</tool_call>')
    assert len(parsed.calls) == 1
    assert parsed.calls[0].name == "read_file"
    assert isinstance(parsed.calls[0].arguments, str)


def test_an_unclosed_block_at_the_end_is_parsed() -> None:
    parsed = parse_text_turn('ok <tool_call>{"name": "search", "arguments": {"pattern": "p"}}')
    assert [(c.name, c.arguments) for c in parsed.calls] == [("search", {"pattern": "p"})]
    assert parsed.visible == "ok"


def test_protocol_prompt_describes_every_tool_and_the_format() -> None:
    prompt = protocol_prompt([tool.spec for tool in DEFAULT_TOOLS])
    assert '<tool_call>{"name": "TOOL_NAME", "arguments":' in prompt
    # Each tool as a signature from its schema (`?` marks an optional argument).
    assert "- read_file(path: string, start_line?: integer, end_line?: integer): Read a file." in (
        prompt
    )
    assert "- search(pattern: string): Search the workspace." in prompt
    for tool in DEFAULT_TOOLS:
        assert f"): {tool.spec.description}" in prompt


def test_rendering_turns_tool_messages_into_one_delimited_user_message() -> None:
    history = [
        Message(role="system", content="guide"),
        Message(role="user", content="task"),
        Message(
            role="assistant",
            content="Looking.",
            tool_calls=(
                ToolCall(id="call_1", name="read_file", arguments={"path": "a"}),
                ToolCall(id="call_2", name="search", arguments={"pattern": "b"}),
            ),
        ),
        Message(role="tool", content="A", tool_call_id="call_1", name="read_file"),
        Message(role="tool", content="B", tool_call_id="call_2", name="search"),
        Message(role="user", content="Now answer."),
    ]
    rendered = render_for_text_protocol(history, "PROTOCOL")
    assert [m.role for m in rendered] == ["system", "user", "assistant", "user"]
    assert rendered[0].content == "PROTOCOL\n\nguide"
    assert rendered[2].content == (
        'Looking.\n<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>\n'
        '<tool_call>{"name": "search", "arguments": {"pattern": "b"}}</tool_call>'
    )
    results = rendered[3].content
    assert '<tool_result id="call_1" name="read_file">\nA\n</tool_result>' in results
    assert '<tool_result id="call_2" name="search">\nB\n</tool_result>' in results
    assert results.endswith("Now answer.")  # merged: no two user messages in a row
    assert all(not m.tool_calls and m.role != "tool" for m in rendered)


async def test_native_model_gets_tools_and_results_as_tool_messages(
    executor: FakeExecutor,
) -> None:
    model = ScriptedModel.of(turn(read("a.py")), answer())
    await AgentLoop(model, executor, LoopConfig()).run("task")
    assert [t.name for t in model.calls[0].tools] == [t.spec.name for t in DEFAULT_TOOLS]
    second = model.calls[1].messages
    assert second[-1].role == "tool"
    assert second[-1].tool_call_id == second[-2].tool_calls[0].id


async def test_text_model_gets_no_tools_the_protocol_and_delimited_results(
    executor: FakeExecutor,
) -> None:
    model = ScriptedModel.of(
        ModelTurn(text=f"I will read.\n{READ_A}"), answer(), native_tools=False
    )
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "completed"
    assert executor.executed == [("read_file", {"path": "a.py"})]
    first, second = model.calls
    assert first.tools == [] and second.tools == []
    system = first.messages[0]
    assert system.role == "system"
    assert "<tool_call>" in system.content
    assert system.content.endswith(GUIDANCE_TAIL)
    assert second.messages[-2].role == "assistant"
    assert READ_A.replace(" ", "") in second.messages[-2].content.replace(" ", "")
    assert second.messages[-1].role == "user"
    assert '<tool_result id="call_1" name="read_file">' in second.messages[-1].content
    # The stored history keeps the native shape, paired by id.
    stored = outcome.state.messages
    assert stored[2].content == "I will read."
    assert stored[2].tool_calls[0].id == "call_1"
    assert stored[3].role == "tool" and stored[3].tool_call_id == "call_1"


async def test_tools_refused_switches_to_text_and_retries_the_turn_once(
    executor: FakeExecutor,
) -> None:
    model = ScriptedModel.of(
        ToolsUnsupportedError("model does not support tools"),
        ModelTurn(text=READ_A),
        answer("All good."),
    )
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "completed"
    assert len(model.calls) == 3
    assert model.calls[0].tools and model.calls[1].tools == [] and model.calls[2].tools == []
    assert "<tool_call>" in model.calls[1].messages[0].content
    assert outcome.result.iterations_used == 2  # the refused call is not an iteration
    assert outcome.state.native_tools is False
    assert executor.executed == [("read_file", {"path": "a.py"})]


async def test_tools_refused_again_in_text_mode_fails_the_run(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(
        ToolsUnsupportedError("no tools"), ToolsUnsupportedError("still no tools")
    )
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "failed"
    assert outcome.result.error == "still no tools"
    assert len(model.calls) == 2


async def test_provider_error_is_not_mistaken_for_a_tools_refusal(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(ModelError("HTTP 500 from the provider"))
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert outcome.result.error == "HTTP 500 from the provider"
    assert len(model.calls) == 1


async def test_a_text_call_whose_name_is_not_a_string_is_paired_as_invalid(
    executor: FakeExecutor,
) -> None:
    bad = '<tool_call>{"name": 42, "arguments": {"path": "a.py"}}</tool_call>'
    model = ScriptedModel.of(ModelTurn(text=f"{bad}\n{READ_A}"), answer(), native_tools=False)
    outcome = await AgentLoop(model, executor, LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    assert [t.status for t in outcome.result.tool_calls] == ["failed", "ok"]
    assert executor.executed == [("read_file", {"path": "a.py"})]
    told = model.calls[1].messages[-1].content
    assert "the tool name must be a string, got a number (42)" in told
