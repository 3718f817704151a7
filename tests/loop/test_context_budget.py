"""Capped tool outputs and a history kept under the model's token budget.

See docs/interface.md#bounded-output.
"""

from __future__ import annotations

from pydantic import BaseModel

from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.context_budget import (
    cap_output,
    elision_note,
    estimate_tokens,
    fit_history,
    history_budget,
    history_tokens,
)
from rune_lsp.loop.messages import Message, ToolCall
from rune_lsp.loop.state import Finished, ToolOutcome

from .fakes import FakeExecutor, ScriptedModel, answer, read, turn


def test_short_output_is_untouched() -> None:
    assert cap_output("hello", 10) == "hello"


def test_long_output_is_capped_with_a_way_to_get_more() -> None:
    capped = cap_output("x" * 50_000, 12_000)
    assert capped.startswith("x" * 12_000)
    assert "x" * 12_001 not in capped
    assert "showed the first 12000 of 50000 characters" in capped
    assert "narrower start_line/end_line range" in capped
    assert len(capped) < 12_300


def test_budget_is_the_context_minus_a_reserve_with_a_floor() -> None:
    assert history_budget(None) == 6_144  # 8192 when unknown, 25% kept for the answer
    assert history_budget(32_768) == 24_576
    assert history_budget(512) == 1_024
    assert history_budget(0) == 6_144


def test_tokens_are_estimated_as_a_quarter_of_the_characters() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2


def conversation(outputs: list[str]) -> list[Message]:
    messages = [Message(role="system", content="S" * 400), Message(role="user", content="U" * 400)]
    for number, output in enumerate(outputs, start=1):
        call = ToolCall(id=f"call_{number}", name="read_file", arguments={"path": f"f{number}"})
        messages.append(Message(role="assistant", tool_calls=(call,)))
        messages.append(
            Message(role="tool", content=output, tool_call_id=call.id, name="read_file")
        )
    return messages


def test_history_under_budget_is_untouched() -> None:
    messages = conversation(["a" * 100, "b" * 100])
    assert fit_history(messages, 10_000) == messages


def test_oldest_tool_outputs_are_elided_first_with_pairs_intact() -> None:
    messages = conversation(["a" * 4_000, "b" * 4_000, "c" * 4_000])
    budget = history_tokens(messages) - 1_500  # eliding two outputs is needed, not three
    fitted = fit_history(messages, budget)
    assert len(fitted) == len(messages)
    assert [(m.role, m.tool_call_id) for m in fitted] == [
        (m.role, m.tool_call_id) for m in messages
    ]
    assert fitted[3].content == (
        "[elided: 4000 chars of read_file output; call the tool again if you need it]"
    )
    assert fitted[5].content == elision_note(messages[5])
    assert fitted[7].content == "c" * 4_000
    assert fitted[:2] == messages[:2]
    assert history_tokens(fitted) <= budget


def test_an_impossible_budget_elides_every_output_but_drops_nothing() -> None:
    messages = conversation(["a" * 4_000, "b" * 4_000])
    fitted = fit_history(messages, 10)
    assert len(fitted) == len(messages)
    assert fitted[:2] == messages[:2]
    assert all(m.content.startswith("[elided:") for m in fitted if m.role == "tool")


def test_outputs_shorter_than_the_note_are_kept() -> None:
    messages = conversation(["tiny", "b" * 4_000])
    fitted = fit_history(messages, history_tokens(messages) - 500)
    assert fitted[3].content == "tiny"
    assert fitted[5].content.startswith("[elided:")


def big_file(name: str, arguments: BaseModel) -> ToolOutcome:
    return ToolOutcome(status="ok", content="line\n" * 40_000)


async def test_a_run_stores_only_capped_outputs() -> None:
    model = ScriptedModel.of(turn(read("big.txt")), answer())
    config = LoopConfig(tool_output_cap=1_000)
    outcome = await AgentLoop(model, FakeExecutor(reader=big_file), config).run("task")
    assert isinstance(outcome, Finished)
    stored = next(m for m in outcome.state.messages if m.role == "tool").content
    assert len(stored) < 1_300
    assert "showed the first 1000 of 200000 characters" in stored
    assert all(len(record.digest) <= 200 for record in outcome.state.call_log)


async def test_the_model_is_sent_a_history_that_fits_its_context() -> None:
    model = ScriptedModel.of(
        turn(read("one.txt")), turn(read("two.txt")), answer(), context_length=4_096
    )
    outcome = await AgentLoop(model, FakeExecutor(reader=big_file), LoopConfig()).run("task")
    assert isinstance(outcome, Finished)
    last_view = model.calls[-1].messages
    assert [m.role for m in last_view] == [m.role for m in outcome.state.messages[:-1]]
    assert last_view[3].content.startswith("[elided: ")
    assert history_tokens(last_view) <= history_budget(4_096)
    # The stored run keeps the capped text; only the view is elided.
    assert outcome.state.messages[3].content.startswith("line\n")
