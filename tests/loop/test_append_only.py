"""Issue 16: each request of a run starts with exactly the previous request, so llama-server's
and Ollama's prompt caches serve the whole prefix and only the new turn is evaluated. What the
runtime adds (results, the check's verdict, notices) is appended; nothing before is rewritten.
The one exception is the move to the text protocol, which rebuilds the system message once."""

from __future__ import annotations

from pathlib import Path

from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.messages import ModelTurn, TurnCut
from rune_lsp.loop.state import CheckReport, Finished, Paused, RunState
from rune_lsp.loop.task import FixTask

from .fakes import ChatCall, FakeExecutor, ScriptedModel, approve_all, edit, read, turn
from .test_check_feed import FAILING, PASSING, ScriptedChecker

TASK = FixTask(path="app.py", text="def add(a, b):\n    return a - b\n", instruction="Fix add.")
PROSE = ModelTurn(
    text=(Path(__file__).parent / "fixtures" / "qwen2.5-coder-1.5b_prose_fix.txt").read_text()
)


def text_call(name: str, arguments: str) -> ModelTurn:
    return ModelTurn(text=f'<tool_call>{{"name": "{name}", "arguments": {arguments}}}</tool_call>')


TEXT_READ = text_call("read_file", '{"path": "app.py"}')
TEXT_EDIT = text_call("edit_file", '{"path": "app.py", "old_text": "a - b", "new_text": "a + b"}')


def assert_extends(earlier: ChatCall, later: ChatCall) -> None:
    assert later.tools == earlier.tools
    assert later.messages[: len(earlier.messages)] == earlier.messages


def assert_extends_as_text(earlier: ChatCall, later: ChatCall) -> None:
    """The text protocol merges adjacent user messages (chat templates reject two in a row):
    the earlier request's last message may have grown at its end, and nothing else changed,
    so the rendered prompt still starts with the earlier one."""
    *kept, last = earlier.messages
    assert later.tools == earlier.tools
    assert later.messages[: len(kept)] == kept
    grown = later.messages[len(kept)]
    assert grown.role == last.role and grown.content.startswith(last.content)


async def until_finished(
    loop: AgentLoop, outcome: Paused | Finished, checker: ScriptedChecker | None = None
) -> Finished:
    while isinstance(outcome, Paused):
        approve_all(outcome.state)
        # As the server does on resume: the paused state comes back from its stored JSON.
        stored = RunState.model_validate_json(outcome.state.model_dump_json())
        outcome = await loop.resume(stored, checker=checker)
    return outcome


async def test_a_run_with_calls_edits_a_cut_and_the_check_only_appends() -> None:
    still = CheckReport(command="pytest -q", exit_code=1, output="E   assert 6 == 5")
    checker = ScriptedChecker([FAILING, still, PASSING])
    cut = ModelTurn(text="the the the", cut=TurnCut(reason="repetition", chars=11))
    model = ScriptedModel.of(
        turn(read("app.py"), text="Reading."),
        cut,
        turn(edit("app.py", "a - b", "a + b + 1")),
        turn(edit("app.py", "a + b + 1", "a + b")),
    )
    loop = AgentLoop(model, FakeExecutor(), LoopConfig())

    outcome = await until_finished(
        loop, await loop.run(TASK.prompt(), run_id="r", checker=checker), checker
    )

    assert outcome.result.outcome == "completed" and len(model.calls) == 4
    # Each kind of addition happened: a result, the cut's notice, the check's verdicts.
    sent = [m.content for m in model.calls[-1].messages]
    assert any(c.startswith("[rune] Your previous answer was cut") for c in sent)
    assert any(c.startswith("After your change the check") for c in sent)
    assert "The check `pytest -q` failed" in sent[1]
    for earlier, later in zip(model.calls, model.calls[1:], strict=False):
        assert_extends(earlier, later)


async def test_the_corrective_turn_is_appended() -> None:
    model = ScriptedModel.of(PROSE, turn(edit("app.py", "a - b", "a + b")), adaptive_protocol=True)
    loop = AgentLoop(model, FakeExecutor(), LoopConfig())

    await until_finished(loop, await loop.run(TASK.prompt(), run_id="r"))

    first, coached, final = model.calls
    assert "[rune] Nothing was changed" in coached.messages[-1].content
    assert_extends(first, coached)
    assert_extends(coached, final)


async def test_a_text_protocol_run_only_appends_to_its_rendered_chat() -> None:
    model = ScriptedModel.of(TEXT_READ, TEXT_EDIT, native_tools=False)
    loop = AgentLoop(model, FakeExecutor(), LoopConfig())

    await until_finished(loop, await loop.run(TASK.prompt(), run_id="r"))

    assert len(model.calls) == 3
    for earlier, later in zip(model.calls, model.calls[1:], strict=False):
        assert_extends_as_text(earlier, later)


async def test_the_switch_to_the_text_protocol_rebuilds_only_the_system_message() -> None:
    model = ScriptedModel.of(PROSE, PROSE, TEXT_READ, TEXT_EDIT, adaptive_protocol=True)
    loop = AgentLoop(model, FakeExecutor(), LoopConfig())

    await until_finished(loop, await loop.run(TASK.prompt(), run_id="r"))

    first, coached, switched, *text_turns = model.calls
    assert_extends(first, coached)
    # The switch: the schemas leave the request and the protocol joins the system message;
    # the chat after it is the native one, as text. From then on, appended again.
    assert switched.tools == [] and "<tool_call>" in switched.messages[0].content
    assert switched.messages[1:3] == coached.messages[1:3]
    assert text_turns
    for earlier, later in zip([switched, *text_turns], text_turns, strict=False):
        assert_extends_as_text(earlier, later)
