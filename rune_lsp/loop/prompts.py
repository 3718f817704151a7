"""Fixed text the runtime itself says to the model.

The guidance's last sentence is part of the public interface (docs/interface.md#system-guidance),
so it lives in one constant; whatever a front end adds goes before it.
"""

from __future__ import annotations

#: The exact closing sentence of every system message.
GUIDANCE_TAIL = (
    "Use tools for every file/command action; never fabricate tool output. "
    "Read before editing; verify fixes by running them."
)

GUIDANCE = (
    "You are a careful coding agent working in the user's workspace. You can only see and "
    "change it through the tools you are given; every change you propose is reviewed by the "
    "user before it lands. Make the smallest change that solves the task. When you are done, "
    "reply without calling tools: say briefly what you changed and why, or why you could not.\n"
    + GUIDANCE_TAIL
)

#: The last message of a run that ended early: one more model call, with no tools offered.
FINAL_SYNTHESIS_INSTRUCTION = (
    "The run is ending: a call you made repeated an earlier call with an identical result, "
    "so it was skipped, and no more tools can be called. Do not call any tool. Write your "
    "final answer now from the results you already have: what you found, what you changed, "
    "and what remains undone."
)


def system_text(extra: str = "") -> str:
    """The system message: the front end's extra guidance first, the fixed guidance last."""
    extra = extra.strip()
    return f"{extra}\n\n{GUIDANCE}" if extra else GUIDANCE
