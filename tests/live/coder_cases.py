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

import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rune_lsp.loop.fallback import protocol_prompt, render_for_text_protocol
from rune_lsp.loop.prompts import system_text
from rune_lsp.loop.state import Message, ToolSpec
from rune_lsp.loop.task import FixTask
from rune_lsp.tools.catalog import TOOLS
from tests.live.workspace import APP_INSTRUCTION, APP_PY

Shape = Literal["native", "plain", "text"]
SHAPES: tuple[Shape, ...] = ("native", "plain", "text")
SPECS: tuple[ToolSpec, ...] = tuple(tool.spec for tool in TOOLS)
CORPUS = Path(__file__).resolve().parents[2] / "bench" / "effect" / "corpus"
BLIND = "There is a bug in this program. Fix it."
#: Lines of pytest's report pasted into the message, as the issue measured Aider with.
PASTED_LINES = 25


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
        Message(role="system", content=system_text()),
        Message(role="user", content=case.task()),
    ]
    return render_for_text_protocol(agent, protocol_prompt(SPECS)) if shape == "text" else agent


def tools(shape: Shape) -> Sequence[ToolSpec]:
    return SPECS if shape == "native" else ()


def failing_output(program: Path) -> str:
    """The last lines of pytest's report for the corpus program, run where it lives alone."""
    with tempfile.TemporaryDirectory(prefix="rune-case-") as scratch:
        for name in ("prog.py", "test_prog.py"):
            (Path(scratch) / name).write_text(
                (program / name).read_text(encoding="utf-8"), encoding="utf-8"
            )
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
            cwd=scratch,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    return "\n".join(done.stdout.splitlines()[-PASTED_LINES:])


def corpus_case(task: str, *, pasted: bool) -> FixCase:
    program = CORPUS / task
    instruction = BLIND
    if pasted:
        instruction = f"{BLIND}\n\nThe test fails:\n```\n{failing_output(program)}\n```"
    return FixCase(
        name=f"{task.split('_', 1)[1]}_{'pasted' if pasted else 'blind'}",
        path="prog.py",
        text=(program / "prog.py").read_text(encoding="utf-8"),
        instruction=instruction,
    )


def fix_cases() -> tuple[FixCase, ...]:
    return (
        FixCase("app_add", "app.py", APP_PY, APP_INSTRUCTION),
        corpus_case("01_sum_to_n", pasted=False),
        corpus_case("01_sum_to_n", pasted=True),
        corpus_case("22_median", pasted=False),
    )
