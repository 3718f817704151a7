"""The run's history as a request in the text protocol, for models without native tool calling.

The protocol itself (its prompt, the call format `<tool_call>{"name": ..., "arguments":
{...}}</tool_call>`) is the calls reader's (answers/calls/prompts.py), and so is reading calls
back (answers/calls/text.py). Only a turn that offers tools carries the protocol's prompt
(answers/table.py).

The run's history is always stored in the native shape (assistant `tool_calls`, one role=tool
message per call); `render_for_text_protocol` turns it into plain chat for each request, so a run
can switch protocols mid-way without rewriting what it already holds.
"""

from __future__ import annotations

from collections.abc import Sequence

from rune_lsp.answers.calls.prompts import format_call
from rune_lsp.loop.messages import Message

RESULTS_HEADER = "Results of your tool calls, one block per call id:"


def format_results(results: Sequence[Message]) -> str:
    blocks = [
        f'<tool_result id="{message.tool_call_id}" name="{message.name}">\n'
        f"{message.content}\n</tool_result>"
        for message in results
    ]
    return RESULTS_HEADER + "\n" + "\n".join(blocks)


def render_for_text_protocol(messages: Sequence[Message], protocol: str) -> list[Message]:
    """The native-shaped history as plain system/user/assistant chat for the text protocol.

    The protocol goes first in the system message so the fixed guidance stays its last line;
    each run of tool results becomes one user message; adjacent user messages are merged
    because many chat templates reject two in a row.
    """
    rendered: list[Message] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        if message.role == "tool":
            end = index
            while end < len(messages) and messages[end].role == "tool":
                end += 1
            _append(rendered, Message(role="user", content=format_results(messages[index:end])))
            index = end
            continue
        if message.role == "system":
            content = f"{protocol}\n\n{message.content}" if protocol else message.content
            _append(rendered, Message(role="system", content=content))
        elif message.role == "assistant" and message.tool_calls:
            parts = [message.content.strip()] if message.content.strip() else []
            parts.extend(format_call(call.name, call.arguments) for call in message.tool_calls)
            _append(rendered, Message(role="assistant", content="\n".join(parts)))
        else:
            _append(rendered, Message(role=message.role, content=message.content))
        index += 1
    return rendered


def _append(rendered: list[Message], message: Message) -> None:
    if rendered and message.role == "user" and rendered[-1].role == "user":
        merged = f"{rendered[-1].content}\n\n{message.content}"
        rendered[-1] = Message(role="user", content=merged)
    else:
        rendered.append(message)
