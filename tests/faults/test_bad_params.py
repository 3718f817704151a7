"""Wrong-typed arguments for every rune command: a JSON-RPC InvalidParams error that names the
command and the problem, and the server keeps serving."""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from tests.e2e.conftest import Launch
from tests.e2e.editor import WAIT, FakeEditor

COMMANDS = [
    "rune.fixThis",
    "rune.cancel",
    "rune.acceptEdit",
    "rune.rejectEdit",
    "rune.showDiff",
    "rune.resume",
]

#: `arguments` of the executeCommand, each wrong for every command (None: no arguments).
WRONG_FOR_ALL: list[list[Any] | None] = [
    None,
    [],
    [1],
    [None],
    ["x"],
    [{}],
    [[]],
    ["x", "y"],
    [{"uri": 5, "runId": 5, "editId": 5}],
    [{"uri": "", "runId": "", "editId": ""}],
    [{"uri": None, "runId": None, "editId": None}],
]

#: Wrong for one command in particular, with a word the error must contain.
WRONG_FOR_ONE: list[tuple[str, list[Any], str]] = [
    ("rune.fixThis", [{"uri": "https://example.com/a.py"}], "file: URI"),
    ("rune.fixThis", [{"uri": "file:///no/such/dir/a.py"}], "a.py"),
    ("rune.fixThis", [{"uri": "WS", "range": {"start": {"line": -1}}}], "range"),
    ("rune.fixThis", [{"uri": "WS", "range": "1-2"}], "range"),
    ("rune.fixThis", [{"uri": "WS", "diagnostics": [{"message": 3}]}], "diagnostics"),
    ("rune.fixThis", [{"uri": "WS", "instruction": ["do", "it"]}], "instruction"),
    ("rune.resume", [{"runId": "never-was"}], "no interrupted run"),
]


async def invalid_params(editor: FakeEditor, command: str, arguments: list[Any] | None) -> str:
    """The message of the InvalidParams error `command` must answer `arguments` with."""
    params = types.ExecuteCommandParams(command=command, arguments=arguments)
    protocol = editor.client.protocol
    request = protocol.send_request_async(  # type: ignore[no-untyped-call]
        types.WORKSPACE_EXECUTE_COMMAND, params
    )
    try:
        answer = await asyncio.wait_for(request, WAIT)
    except JsonRpcInvalidParams as exc:
        return str(exc)
    raise AssertionError(f"{command} {arguments!r} was answered {answer!r}")


async def still_serving(editor: FakeEditor) -> None:
    assert await editor.command("rune.cancel", {"runId": "no-such-run"}) == {"cancelled": False}


async def test_wrong_arguments_get_invalid_params_naming_the_command(launch: Launch) -> None:
    editor = await launch("neovim")
    for command in COMMANDS:
        for arguments in WRONG_FOR_ALL:
            message = await invalid_params(editor, command, arguments)
            assert command in message, (arguments, message)
        await still_serving(editor)
    document = editor.uri("app.py")
    for command, arguments, word in WRONG_FOR_ONE:
        filled = [{k: document if v == "WS" else v for k, v in arguments[0].items()}]
        message = await invalid_params(editor, command, filled)
        assert command in message and word in message, (filled, message)
    await still_serving(editor)
    assert editor.client.process is not None and editor.client.process.returncode is None


async def test_an_unsafe_run_id_to_resume_is_invalid_params(launch: Launch) -> None:
    editor = await launch("neovim")

    message = await invalid_params(editor, "rune.resume", [{"runId": "../../etc/passwd"}])

    assert "rune.resume" in message and "run id" in message
    await still_serving(editor)
