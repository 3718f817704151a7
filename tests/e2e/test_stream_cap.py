"""Issue 14.3 over stdio: an endless model answer no longer runs the server out of memory.

The stream is cut at the per-turn cap and closed, the model hears why, and the run goes on to
a typed end well within `requestTimeout` (with the old code it streamed until the timeout,
growing memory all the while).
"""

from __future__ import annotations

import asyncio

import pytest

from tests.doubles.model_double import Endless, ModelDouble, Reply
from tests.e2e.conftest import Launch
from tests.e2e.scenario import edit, told


@pytest.mark.parametrize("provider", ["ollama", "openai"])
async def test_an_endless_answer_is_cut_and_the_run_goes_on(
    launch: Launch, double: ModelDouble, provider: str
) -> None:
    double.script(
        Endless(varying=True),
        edit("app.py", "return a - b", "return a + b"),
        Reply(text="Fixed: add adds."),
    )
    editor = await launch(
        "vscode", settings={"provider": provider, "baseUrl": double.base_url(provider)}
    )

    result = await editor.fix("app.py")

    assert result.outcome == "completed", result.error
    assert [(e.tool, e.status) for e in result.edits] == [("edit_file", "applied")]
    assert "Your previous answer was cut at 1,000," in told(double, 1)
    assert "the most one answer may stream" in told(double, 1)
    assert await asyncio.to_thread(double.wait_for_disconnect, 5) is not None
