"""Following what the model does, not only what the server accepts.

A server that accepts native `tools` says nothing about whether the model uses them: small
models often answer a fix in prose. When a run that may adapt (`ModelCapabilities.
adaptive_protocol`: no setting forced the protocol) gets a first answer with no call, the model
gets one corrective turn showing exactly how to call `edit_file` on the task's file; if it
answers in prose again, the run continues with the text protocol. When that protocol then
produces a call, the provider is told (`Model.prefer_text_protocol`), which remembers it per
model for later runs.

Only a turn whose row in the reader table coaches (answers/table.py: the `tools` turn) comes
here, and only when `answers.read_turn` found neither a call (native or written as text) nor a
code block to take or to say something about. A code-first turn offers no tools: its prose
answer is never told that code blocks do not edit files, nor does it switch the protocol.
The corrective turns' words are the calls reader's (answers/calls/prompts.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from rune_lsp.answers.calls.prompts import EDIT_TOOL, coaching_notice, switch_notice
from rune_lsp.loop.state import ProtocolStep, RunState

#: The path the corrective turns name when the run has no target.
NO_TARGET = "path/of/the/file"


def take_step(state: RunState, answer: str, *, adaptive: bool, tools: Sequence[str]) -> bool:
    """After a model turn with no call: take the next step (queue the notice, switch the
    protocol) and say True when the run goes on with another turn, False to accept `answer`."""
    step = next_step(state, answer, adaptive=adaptive, tools=tools)
    path = state.target or NO_TARGET  # the task's file: RunState.target is its one source
    if step == "coached":
        state.notices.append(coaching_notice(path))
    elif step == "switched":
        state.native_tools = False
        state.notices.append(switch_notice(path))
    if step is None:
        return False
    state.protocol_step = step
    return True


def next_step(
    state: RunState, answer: str, *, adaptive: bool, tools: Sequence[str]
) -> ProtocolStep | None:
    """After a model turn with no call: the step to take now, or None to accept the answer.
    An empty answer is taken as it is (the run ends incomplete): nothing suggests prose."""
    if not adaptive or not state.native_tools or EDIT_TOOL not in tools or state.used_tools:
        return None
    if not answer.strip():
        return None
    if state.iterations_used >= state.iteration_budget:
        return None  # no turn left to correct anything in
    if state.protocol_step == "none" and state.iterations_used == 1:
        return "coached"
    if state.protocol_step == "coached":
        return "switched"
    return None
