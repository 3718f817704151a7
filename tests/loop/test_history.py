"""A follow-up run continues an earlier conversation (`AgentLoop.run(..., history=...)`)."""

from __future__ import annotations

from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.messages import Message
from rune_lsp.loop.state import Finished

from .fakes import FakeExecutor, ScriptedModel, answer

EARLIER = (
    Message(role="system", content="an earlier system prompt, replaced"),
    Message(role="user", content="Task: fix add"),
    Message(role="assistant", content="It subtracts; is that meant?"),
)


async def test_the_history_comes_before_the_new_message_with_a_budget_of_its_own() -> None:
    model = ScriptedModel.of(answer("Then it should add."))
    loop = AgentLoop(model, FakeExecutor(), LoopConfig(max_iterations=2))

    finished = await loop.run("No, it is meant to add.", run_id="r2", history=EARLIER)

    assert isinstance(finished, Finished)
    assert (finished.result.iterations_used, finished.result.iteration_budget) == (1, 2)
    sent = model.calls[0].messages
    assert [m.role for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[0].content != EARLIER[0].content  # this run's own system prompt
    assert [m.content for m in sent[1:]] == [
        "Task: fix add",
        "It subtracts; is that meant?",
        "No, it is meant to add.",
    ]
