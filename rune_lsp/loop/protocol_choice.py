"""Following what the model does, not only what the server accepts.

A server that accepts native `tools` says nothing about whether the model uses them: small
models often answer a fix in prose. When a run that may adapt (`ModelCapabilities.
adaptive_protocol`: no setting forced the protocol) gets a first answer with no call, the model
gets one corrective turn showing exactly how to call `edit_file` on the task's file; if it
answers in prose again, the run continues with the text protocol. When that protocol then
produces a call, the provider is told (`Model.prefer_text_protocol`), which remembers it per
model for later runs.

Order within a turn without calls (runtime `_drive`): calls written as text are read first
(text_calls), then a fenced code block may become an edit proposal; only a turn that still has
neither comes here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from rune_lsp.loop.state import Message, ProtocolStep, RunState
from rune_lsp.loop.task import task_file

#: The tool the corrective turn shows; a run without it has nothing to coach towards.
EDIT_TOOL = "edit_file"


def take_step(state: RunState, answer: str, *, adaptive: bool, tools: Sequence[str]) -> bool:
    """After a model turn with no call: take the next step (queue the notice, switch the
    protocol) and say True when the run goes on with another turn, False to accept `answer`."""
    step = next_step(state, answer, adaptive=adaptive, tools=tools)
    if step == "coached":
        state.notices.append(coaching_notice(state.messages))
    elif step == "switched":
        state.native_tools = False
        state.notices.append(switch_notice(state.messages))
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


def coaching_notice(messages: Sequence[Message]) -> str:
    # Imperative and short, the call's shape spelled out with the task's own path: measured on
    # Qwen2.5-Coder-1.5B, a polite explanation got the same prose answer again, this wording a
    # call. "Without line numbers": small models copy the excerpt's `  3 | ` prefixes.
    call = {
        "name": EDIT_TOOL,
        "arguments": {
            "path": _path(messages),
            "old_text": "<the exact current lines>",
            "new_text": "<the corrected lines>",
        },
    }
    return (
        "[rune] Nothing was changed: text and code blocks do not edit files. Do not explain "
        f"again. Reply with only one call of the {EDIT_TOOL} tool, with old_text the exact "
        "current line(s) to replace (without line numbers) and new_text their replacement: "
        f"{json.dumps(call)}"
    )


def switch_notice(messages: Sequence[Message]) -> str:
    call = {
        "name": EDIT_TOOL,
        "arguments": {"path": _path(messages), "old_text": "...", "new_text": "..."},
    }
    return (
        "[rune] Still nothing was changed. Reply with only a tool call written exactly like "
        f"this, on its own line: <tool_call>{json.dumps(call)}</tool_call> (the tools are "
        "listed in the system message)."
    )


def _path(messages: Sequence[Message]) -> str:
    """The task's file as the task named it (its first user message)."""
    task = next((m.content for m in messages if m.role == "user"), "")
    return task_file(task) or "path/of/the/file"
