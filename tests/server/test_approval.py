"""Approving a command the agent wants to run: the client's own prompt, the plain LSP prompt,
and commands allowed for the run or by `allowedCommands`."""

from __future__ import annotations

import pytest
from lsprotocol import types

from rune_lsp.interface import APPROVE_COMMAND
from tests.loop.fakes import answer, call, turn
from tests.server.conftest import Launch
from tests.server.editor import finished, told
from tests.server.test_review import statuses

RUN = turn(call("run_command", {"command": "echo hi"}))
RUN_AGAIN = turn(call("run_command", {"command": "echo hi"}, id="again"))


async def test_a_client_with_its_own_prompt_is_asked_with_the_whole_command(
    launch: Launch,
) -> None:
    command = "echo " + "x" * 300 + " && echo tail"
    editor = await launch(
        turn(call("run_command", {"command": command})), answer("Ran it."), approves=True
    )

    result = await finished(editor.fix()[1])

    assert not editor.requests(types.WINDOW_SHOW_MESSAGE_REQUEST)
    [request] = editor.requests(APPROVE_COMMAND)
    assert request["params"]["command"] == command  # whole, never cut to a benign head
    assert request["params"]["runId"] == result["runId"]
    assert request["params"]["waitSeconds"] > 0
    assert statuses(result) == [("run_command", "applied")]


@pytest.mark.parametrize(
    ("approval", "status", "told_text"),
    [
        ({"decision": "deny", "reason": "not on my machine"}, "rejected", "not on my machine"),
        ({"decision": "maybe"}, "rejected", "the editor's answer was not understood"),
        ({"decision": "run", "extra": 1}, "applied", "hi"),
    ],
)
async def test_the_clients_answer_decides(
    launch: Launch, approval: dict[str, object], status: str, told_text: str
) -> None:
    editor = await launch(RUN, answer("Done."), approves=True)
    editor.approval = approval

    result = await finished(editor.fix()[1])

    assert statuses(result) == [("run_command", status)]
    assert told_text in told(editor)


@pytest.mark.parametrize("decision", ["allowForRun", "allowAlways"])
async def test_a_command_allowed_for_the_run_is_not_asked_about_again(
    launch: Launch, decision: str
) -> None:
    editor = await launch(RUN, RUN_AGAIN, answer("Ran it twice."), approves=True)
    editor.approval = {"decision": decision}

    result = await finished(editor.fix()[1])

    assert len(editor.requests(APPROVE_COMMAND)) == 1
    assert statuses(result) == [("run_command", "applied"), ("run_command", "applied")]


async def test_a_plain_client_can_allow_a_command_for_the_run(launch: Launch) -> None:
    editor = await launch(RUN, RUN_AGAIN, answer("Ran it twice."))
    editor.message_answer = "Allow for this run"

    result = await finished(editor.fix()[1])

    [request] = editor.requests(types.WINDOW_SHOW_MESSAGE_REQUEST)
    titles = [action["title"] for action in request["params"]["actions"]]
    assert titles == ["Run", "Allow for this run", "Deny"]
    assert statuses(result) == [("run_command", "applied"), ("run_command", "applied")]


async def test_allowed_commands_run_without_asking(launch: Launch) -> None:
    editor = await launch(RUN, answer("Ran it."), allowedCommands=["echo *"])

    result = await finished(editor.fix()[1])

    assert not editor.requests(types.WINDOW_SHOW_MESSAGE_REQUEST)
    assert statuses(result) == [("run_command", "applied")]
    assert "hi" in told(editor)


async def test_a_prefix_does_not_allow_a_second_command(launch: Launch) -> None:
    sneaky = turn(call("run_command", {"command": "echo hi; touch pwned"}))
    editor = await launch(sneaky, answer("Asked."), allowedCommands=["echo *"])
    editor.message_answer = "Deny"

    result = await finished(editor.fix()[1])

    assert len(editor.requests(types.WINDOW_SHOW_MESSAGE_REQUEST)) == 1
    assert statuses(result) == [("run_command", "rejected")]
    assert not (editor.root / "pwned").exists()


async def test_the_clients_prompt_is_withdrawn_when_the_server_stops_waiting(
    launch: Launch,
) -> None:
    editor = await launch(RUN, answer("Not run."), approves=True, requestTimeout=0.05)
    editor.approval = None

    result = await finished(editor.fix()[1])

    assert statuses(result) == [("run_command", "rejected")]
    [request] = editor.requests(APPROVE_COMMAND)
    cancels = editor.notifications(types.CANCEL_REQUEST)
    assert [c["params"]["id"] for c in cancels] == [request["id"]]
