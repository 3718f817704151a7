"""Issue 24's contradictions between the readers, and issue 26 point 4: one table decides per
turn what is offered, which readers listen and the system message (answers/table.py)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from rune_lsp.answers import turn as answers_turn
from rune_lsp.answers.code.reading import CodeReading, read_code
from rune_lsp.answers.code_prompts import BLOCK_ASK
from rune_lsp.answers.table import GUIDANCE_TAIL
from rune_lsp.interface import DEFAULT_FIRST_TURN
from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.state import Finished, Paused, PreparedEdit
from rune_lsp.settings import Settings

from .fakes import FakeExecutor, ScriptedModel, answer, read, turn

APP = 'def add(a, b):\n    """Return the sum of a and b."""\n    return a - b\n'
FIXED = 'def add(a, b):\n    """Return the sum of a and b."""\n    return a + b\n'
PROSE = (Path(__file__).parent / "fixtures" / "qwen2.5-coder-1.5b_prose_fix.txt").read_text()
READ_AS_TEXT = '<tool_call>{"name": "read_file", "arguments": {"path": "app.py"}}</tool_call>'


def executor_with(text: str = APP) -> FakeExecutor:
    executor = FakeExecutor()
    executor.files["app.py"] = text
    return executor


async def code_first(model: ScriptedModel, executor: FakeExecutor) -> Paused | Finished:
    loop = AgentLoop(model, executor, LoopConfig(first_turn="code"))
    return await loop.run("Fix add.", run_id="r", target="app.py")


async def test_a_tilde_fence_is_read_as_a_code_block() -> None:
    # skel: proposals.py looked for ``` before reading, so a ~~~ block was never read.
    model = ScriptedModel.of(answer(f"Fixed:\n~~~python\n{FIXED}~~~\n"))
    outcome = await code_first(model, executor_with())

    assert isinstance(outcome, Paused)
    [change] = outcome.state.turn.pending
    assert isinstance(change, PreparedEdit) and "a + b" in change.new_text


async def test_the_text_protocols_code_first_turn_lists_no_tool_and_runs_no_call() -> None:
    # skel: the text protocol's prompt (every tool) went out on the "no tools" turn, and a call
    # written as text in its answer ran.
    model = ScriptedModel.of(answer(READ_AS_TEXT), answer("Done."), native_tools=False)
    executor = executor_with()
    await code_first(model, executor)

    first, second = model.calls
    assert first.tools == [] and "<tool_call>" not in first.messages[0].content
    assert executor.executed == []
    assert "<tool_call>" in second.messages[0].content  # the tools turn describes them


async def test_a_code_first_prose_answer_is_asked_for_code_not_switched_to_the_text_protocol() -> (
    None
):
    # skel: adaptive protocol (the default) told this turn "text and code blocks do not edit
    # files", then moved the run (and, remembered per model, later runs) to the text protocol.
    model = ScriptedModel.of(
        answer("The bug is the minus sign."),
        answer("It subtracts."),
        answer("Still prose."),
        adaptive_protocol=True,
    )
    outcome = await code_first(model, executor_with())

    notes = [m.content for m in outcome.state.messages if m.role == "user"][1:]
    assert notes and all("do not edit files" not in note for note in notes)
    assert notes[0].endswith(f"To change it, {BLOCK_ASK}.")
    assert outcome.state.native_tools and outcome.state.protocol_step == "none"
    assert not model.prefers_text


async def test_the_coaching_names_the_runs_target_not_a_line_of_the_prompt() -> None:
    # skel read the path back from the task's "File: " line; RunState.target is the one source.
    model = ScriptedModel.of(answer("Prose."), answer("Done."), adaptive_protocol=True)
    loop = AgentLoop(model, FakeExecutor(), LoopConfig(first_turn="tools"))
    await loop.run("Fix add in the app.", target="src/app.py")

    coaching = model.calls[1].messages[-1].content
    assert '"path": "src/app.py"' in coaching


def test_the_first_turn_has_one_default() -> None:
    # skel: `code` in the settings, `tools` in LoopConfig.
    assert LoopConfig().first_turn == Settings().first_turn == DEFAULT_FIRST_TURN == "code"


async def test_each_turn_kind_has_a_system_message_that_fits_what_it_offers() -> None:
    # Issue 26 point 4: the code-first turn offers no tools, so its system message must not
    # say the workspace is changed only through tools.
    model = ScriptedModel.of(answer("Prose only."), turn(read("app.py")), answer("Done."))
    await code_first(model, executor_with())

    code_turn, tools_turn, _ = model.calls
    assert code_turn.tools == []
    assert "tools" not in code_turn.messages[0].content
    assert tools_turn.tools and tools_turn.messages[0].content.endswith(GUIDANCE_TAIL)


async def test_the_code_first_system_message_is_shorter_than_the_tools_one() -> None:
    # A 1.5B model reads every token of the first request (bench/effect/preamble.py).
    model = ScriptedModel.of(answer("Prose only."), answer("Done."))
    await code_first(model, executor_with())

    first, second = model.calls
    assert len(first.messages[0].content) < len(second.messages[0].content)


async def test_a_cancel_while_a_big_answer_is_read_is_answered_before_the_read_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The code-block reader runs in a worker thread: the event loop, and so a $/cancelRequest,
    # is free while it reads. The reader here blocks until released; the run's cancellation
    # must come back while it is still blocked.
    entered = threading.Event()
    release = threading.Event()
    finished_reads: list[bool] = []

    def slow_read(
        text: str, files: dict[str, str], target: str, shown: tuple[str, ...]
    ) -> CodeReading:
        entered.set()
        release.wait(timeout=30)  # only a guard against a hang; released below
        finished_reads.append(True)
        return read_code(text, files, target, shown)

    monkeypatch.setattr(answers_turn, "read_code", slow_read)
    model = ScriptedModel.of(answer(f"```python\n{FIXED}```"))
    task = asyncio.create_task(code_first(model, executor_with()))
    await asyncio.to_thread(entered.wait, 30)  # the read has begun in its thread
    task.cancel()
    outcome = await task
    read_still_running = not finished_reads
    release.set()

    assert read_still_running
    assert isinstance(outcome, Finished) and outcome.result.outcome == "cancelled"
