"""The VS Code end-to-end test's model double script (client-vscode/test/e2e): replies keyed by
the run's task, so one scenario that fails early does not shift every later one's answers."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.doubles.model_double import RecordedRequest, Reply

SERVER = Path(__file__).resolve().parents[1] / "client-vscode/test/e2e/model_double_server.py"


@pytest.fixture(scope="module")
def served() -> ModuleType:
    spec = importlib.util.spec_from_file_location("model_double_server", SERVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def chat(*user: str) -> RecordedRequest:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "be brief"}]
    messages += [{"role": "user", "content": text} for text in user]
    return RecordedRequest("POST", "/api/chat", {}, {"messages": messages}, b"")


def test_each_task_takes_its_own_replies_in_order_and_the_rest_go_in_order(
    served: ModuleType,
) -> None:
    script = served.parse_script(
        [
            {"when": "File: app.py", "text": "app 1"},
            {"text": "plain 1"},
            {"when": "Task: try again", "text": "again 1"},
            {"when": "File: app.py", "text": "app 2"},
            {"text": "plain 2"},
        ]
    )

    # The app scenario never ran: the others still get their own replies.
    assert script.answer(chat("Task: try again\nFile: util.py")).text == "again 1"
    assert script.answer(chat("Task: other\nFile: util.py")).text == "plain 1"
    assert script.answer(chat("Task: other\nFile: util.py")).text == "plain 2"
    # A follow-up keeps the run's first user message, so it stays on its scenario's replies.
    follow_up = chat("Task: fix it\nFile: app.py", "and the next one?")
    assert [script.answer(follow_up).text for _ in range(3)] == [
        "app 1",
        "app 2",
        served.NO_REPLY_LEFT.text,
    ]
    assert script.answer(chat("Task: other")) == served.NO_REPLY_LEFT


def test_tool_calls_and_a_slow_stream_are_read_as_before(served: ModuleType) -> None:
    script = served.parse_script(
        [{"toolCalls": [{"name": "edit_file", "arguments": {"path": "a.py"}}], "chunkDelay": 0.5}]
    )

    reply = script.answer(chat("Task: x"))
    assert isinstance(reply, Reply) and reply.chunk_delay == 0.5
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("edit_file", {"path": "a.py"})]


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ({"text": "x"}, "a JSON list"),
        (["x"], "reply 0: expected an object"),
        ([{"text": "x", "when": ""}], "reply 0: when must be a non-empty string"),
        ([{"text": "x"}, {"when": 3}], "reply 1: when must be"),
        ([{"toolCalls": [{"arguments": {}}]}], "each tool call needs a name"),
        ([{"chunkDelay": -1}], "chunkDelay must be a non-negative number"),
    ],
)
def test_a_bad_script_is_refused_with_where(served: ModuleType, raw: Any, says: str) -> None:
    with pytest.raises(served.ScriptError, match=says):
        served.parse_script(raw)


def test_a_request_without_user_messages_takes_the_unkeyed_replies(served: ModuleType) -> None:
    script = served.parse_script([{"when": "Task", "text": "keyed"}, {"text": "plain"}])

    assert served.first_user_message({"messages": "nonsense"}) == ""
    assert script.answer(RecordedRequest("POST", "/api/chat", {}, None, b"")).text == "plain"
