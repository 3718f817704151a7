"""A malformed tool call reaches the loop as it came, beside the turn's good calls."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from rune_lsp.providers.transport import HttpProvider
from tests.doubles.model_double import Call, ModelDouble, Reply
from tests.providers.test_ollama_provider import CONVERSATION, READ_FILE

Connect = Callable[..., HttpProvider]


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("name", [42, ["read_file"], {"tool": "read_file"}])
async def test_a_name_that_is_not_a_string_does_not_fail_the_turn(
    double: ModelDouble, connect: Connect, provider: str, stream: bool, name: object
) -> None:
    double.script(
        Reply(tool_calls=(Call(name, {"path": "x.py"}), Call("read_file", {"path": "a.py"})))
    )

    turn = await connect(provider, stream=stream).chat(CONVERSATION, [READ_FILE])

    assert [call.name for call in turn.tool_calls] == [name, "read_file"]
    assert turn.tool_calls[1].arguments in ({"path": "a.py"}, '{"path": "a.py"}')


async def test_an_id_that_is_not_a_string_is_dropped_not_fatal(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    double.script(Reply(tool_calls=(Call("read_file", {"path": "a.py"}, id=7),)))  # type: ignore[arg-type]

    turn = await connect(provider).chat(CONVERSATION, [READ_FILE])

    assert [(call.id, call.name) for call in turn.tool_calls] == [(None, "read_file")]
