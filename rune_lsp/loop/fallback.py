"""The text protocol for models without native tool calling.

The runtime owns the protocol: the system message describes each tool (its signature, from its
JSON schema, and its description) and one strict call format,
`<tool_call>{"name": ..., "arguments": {...}}</tool_call>`.
Models write calls in other ways too (fenced JSON, their family's own tags); `text_calls` reads
all of them back, for this protocol and for native turns alike. Text outside the calls is the
visible answer.

The run's history is always stored in the native shape (assistant `tool_calls`, one role=tool
message per call); `render_for_text_protocol` turns it into plain chat for each request, so a run
can switch protocols mid-way without rewriting what it already holds.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rune_lsp.loop.state import Message, ToolCall, ToolSpec
from rune_lsp.loop.text_calls import ParsedText, parse_text_turn

__all__ = [
    "RESULTS_HEADER",
    "ParsedText",
    "format_call",
    "format_results",
    "parse_text_turn",
    "protocol_prompt",
    "render_for_text_protocol",
]

RESULTS_HEADER = "Results of your tool calls, one block per call id:"


def protocol_prompt(specs: Sequence[ToolSpec]) -> str:
    tools = "\n".join(_signature(spec) for spec in specs)
    return (
        "# Tools\n"
        "To call a tool, write on its own line, the arguments as one JSON object:\n"
        '<tool_call>{"name": "TOOL_NAME", "arguments": {"ARGUMENT": "VALUE"}}</tool_call>\n'
        "You may write several. Then stop: the results come back in the next message as "
        '<tool_result id="..." name="..."> blocks. When you are done, reply without '
        "<tool_call>.\n\n"
        f"Tools (`?`: optional):\n{tools}"
    )


def _signature(spec: ToolSpec) -> str:
    """`- name(arg: type, opt?: type): description. arg: its description.` Its schema's
    types and descriptions in a third of the JSON's tokens: small models pay for every one."""
    properties: dict[str, Any] = spec.parameters.get("properties", {})
    required = set(spec.parameters.get("required", ()))
    arguments = ", ".join(
        f"{name}{'' if name in required else '?'}: {_type(schema)}"
        for name, schema in properties.items()
    )
    notes = "".join(
        f" {name}: {schema['description']}"
        for name, schema in properties.items()
        if schema.get("description")
    )
    return f"- {spec.name}({arguments}): {spec.description}{notes}"


def _type(schema: dict[str, Any]) -> str:
    """The JSON type an argument takes; an optional one (`anyOf [T, null]`) takes T."""
    kinds = [b.get("type") for b in schema.get("anyOf", [schema]) if b.get("type") != "null"]
    return kinds[0] if len(kinds) == 1 and isinstance(kinds[0], str) else "any"


def format_call(call: ToolCall) -> str:
    payload = json.dumps({"name": call.name, "arguments": call.arguments}, ensure_ascii=False)
    return f"<tool_call>{payload}</tool_call>"


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
            _append(rendered, Message(role="system", content=f"{protocol}\n\n{message.content}"))
        elif message.role == "assistant" and message.tool_calls:
            parts = [message.content.strip()] if message.content.strip() else []
            parts.extend(format_call(call) for call in message.tool_calls)
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
