"""Malformed tool calls over the real wire: each is paired as invalid, its neighbours run."""

from __future__ import annotations

import pytest

from tests.doubles.model_double import Call, ModelDouble, Reply
from tests.e2e.conftest import Launch
from tests.e2e.scenario import told


@pytest.mark.parametrize("provider", ["ollama", "openai"])
async def test_a_call_named_by_a_number_leaves_the_valid_call_beside_it_running(
    launch: Launch, double: ModelDouble, provider: str
) -> None:
    double.script(
        Reply(tool_calls=(Call(42, {"path": "app.py"}), Call("read_file", {"path": "app.py"}))),
        Reply(text="Read it."),
    )
    editor = await launch(
        "neovim", settings={"provider": provider, "baseUrl": double.base_url(provider)}
    )

    result = await editor.fix("app.py")

    assert result.outcome == "completed"
    assert result.calls() == [("", "failed"), ("read_file", "ok")]
    assert "the tool name must be a string, got a number (42)" in told(double)
