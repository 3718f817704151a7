"""The system guidance, with the front end's text before the fixed tail.

See docs/interface.md#system-guidance.
"""

from __future__ import annotations

from rune_lsp.answers.table import GUIDANCE_TAIL, system_text
from rune_lsp.loop import AgentLoop, LoopConfig

from .fakes import FakeExecutor, ScriptedModel, answer

EXACT_TAIL = (
    "Use tools for every file/command action; never fabricate tool output. "
    "Read before editing; verify fixes by running them."
)


def test_the_tail_is_the_contract_sentence() -> None:
    assert GUIDANCE_TAIL == EXACT_TAIL
    assert system_text("tools").endswith(EXACT_TAIL)


async def test_native_system_message_ends_with_the_guidance(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(answer())
    await AgentLoop(model, executor, LoopConfig()).run("Fix the bug.")
    system, user = model.calls[0].messages[:2]
    assert system.role == "system" and system.content.endswith(EXACT_TAIL)
    assert user.role == "user" and user.content == "Fix the bug."


async def test_extra_guidance_goes_before_the_fixed_text(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(answer())
    config = LoopConfig(system_prompt="Project rule: never touch vendor/.")
    await AgentLoop(model, executor, config).run("task")
    system = model.calls[0].messages[0].content
    assert system.startswith("Project rule: never touch vendor/.\n\n")
    assert system.endswith(EXACT_TAIL)


async def test_text_protocol_system_message_also_ends_with_the_guidance(
    executor: FakeExecutor,
) -> None:
    model = ScriptedModel.of(answer(), native_tools=False)
    await AgentLoop(model, executor, LoopConfig(system_prompt="Extra.")).run("task")
    system = model.calls[0].messages[0].content
    assert system.index("<tool_call>") < system.index("Extra.")
    assert system.endswith(EXACT_TAIL)
