"""What the real coding models are asked when their answers are recorded: a few fix tasks, each
in the three shapes rune can send, built exactly as rune builds its first request.

- `native`: rune's system message, the task as `FixTask.prompt()` words it, and the six tool
  schemas in `tools` (what `provider: openai` sends by default);
- `plain`: the same messages without `tools` (what the model says when offered none);
- `text`: the text protocol (`nativeTools: false`): the tool descriptions in the system message,
  no `tools`.

Tasks: the seeds' `app.py` scenario, and two programs of the effect bench's corpus asked blind
("There is a bug in this program. Fix it.") and one with the failing test's output pasted in,
the way a user would.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bench.effect.arms import BLIND, pasted_message
from bench.effect.corpus import PROGRAM, load_tasks
from rune_lsp.answers.calls.prompts import protocol_prompt
from rune_lsp.answers.table import system_text
from rune_lsp.loop.fallback import render_for_text_protocol
from rune_lsp.loop.messages import Message, ToolSpec
from rune_lsp.loop.task import FixTask
from rune_lsp.tools.catalog import TOOLS
from tests.live.workspace import APP_INSTRUCTION, APP_PY

Shape = Literal["native", "plain", "text"]
SHAPES: tuple[Shape, ...] = ("native", "plain", "text")
SPECS: tuple[ToolSpec, ...] = tuple(tool.spec for tool in TOOLS)


@dataclass(frozen=True)
class FixCase:
    """One task as the model sees it on turn 1."""

    name: str
    path: str
    text: str
    instruction: str

    def task(self) -> str:
        return FixTask(path=self.path, text=self.text, instruction=self.instruction).prompt()


def messages(case: FixCase, shape: Shape) -> list[Message]:
    agent = [
        Message(role="system", content=system_text("tools")),
        Message(role="user", content=case.task()),
    ]
    return render_for_text_protocol(agent, protocol_prompt(SPECS)) if shape == "text" else agent


def tools(shape: Shape) -> Sequence[ToolSpec]:
    return SPECS if shape == "native" else ()


def corpus_case(name: str, *, pasted: bool) -> FixCase:
    task = next(t for t in load_tasks() if t.name == name)
    return FixCase(
        name=f"{name.split('_', 1)[1]}_{'pasted' if pasted else 'blind'}",
        path=PROGRAM,
        text=task.source(PROGRAM),
        # Word for word what the effect bench's blind and pasted arms send.
        instruction=pasted_message(task) if pasted else BLIND,
    )


def fix_cases() -> tuple[FixCase, ...]:
    return (
        FixCase("app_add", "app.py", APP_PY, APP_INSTRUCTION),
        corpus_case("01_sum_to_n", pasted=False),
        corpus_case("01_sum_to_n", pasted=True),
        corpus_case("22_median", pasted=False),
    )
