"""The text protocol for models without native tool calling.

The runtime owns the protocol: the system message describes each tool (name, description, JSON
schema) and one strict call format, `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`.
Small models often write a ```json fenced object with "name" and "arguments" instead, so that is
accepted too. Text outside the calls is the visible answer.

The run's history is always stored in the native shape (assistant `tool_calls`, one role=tool
message per call); `render_for_text_protocol` turns it into plain chat for each request, so a run
can switch protocols mid-way without rewriting what it already holds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from rune_lsp.loop.normalize import canonical_json
from rune_lsp.loop.state import Message, RawToolCall, ToolCall, ToolSpec

_TAGGED = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_FENCED = re.compile(r"```[ \t]*(?:json)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
_NAME = re.compile(r'"name"\s*:\s*"([^"\\]*)"')
_BLANK_RUNS = re.compile(r"\n{3,}")

RESULTS_HEADER = "Results of your tool calls, one block per call id:"


def protocol_prompt(specs: Sequence[ToolSpec]) -> str:
    tools = "\n".join(
        f"- {spec.name}: {spec.description}\n  arguments (JSON schema): "
        f"{canonical_json(spec.parameters)}"
        for spec in specs
    )
    return (
        "# Tools\n"
        "You can call the tools listed below. To call one, write exactly this, on its own "
        "lines, with the arguments as one JSON object matching the tool's schema:\n"
        '<tool_call>{"name": "TOOL_NAME", "arguments": {"ARGUMENT": "VALUE"}}</tool_call>\n'
        "You may write several such blocks in one reply. Then stop and wait: the results come "
        'back in the next message as <tool_result id="..." name="..."> blocks, in the order of '
        "your calls. Text outside the blocks is shown to the user. When you are done, reply "
        "without any <tool_call> block.\n\n"
        f"Available tools:\n{tools}"
    )


@dataclass(frozen=True)
class ParsedText:
    visible: str
    calls: tuple[RawToolCall, ...]


def parse_text_turn(text: str) -> ParsedText:
    """Calls in the order written, and the text around them."""
    spans: list[tuple[int, int, RawToolCall]] = []
    for match in _TAGGED.finditer(text):
        spans.append((match.start(), match.end(), _call_from_block(match.group(1))))
    for match in _FENCED.finditer(text):
        if any(start < match.end() and match.start() < end for start, end, _ in spans):
            continue
        call = _call_from_fenced(match.group(1))
        if call is not None:
            spans.append((match.start(), match.end(), call))
    spans.sort(key=lambda span: span[0])

    visible_parts: list[str] = []
    position = 0
    for start, end, _ in spans:
        visible_parts.append(text[position:start])
        position = end
    visible_parts.append(text[position:])
    visible = _BLANK_RUNS.sub("\n\n", "".join(visible_parts)).strip()
    return ParsedText(visible=visible, calls=tuple(call for _, _, call in spans))


def _call_from_block(body: str) -> RawToolCall:
    """A tagged block is always a call; if its JSON is broken, the arguments say so."""
    body = body.strip()
    try:
        parsed = json.loads(body)
    except json.JSONDecodeError:
        name = _NAME.search(body)
        return RawToolCall(name=name.group(1) if name else "", arguments=body)
    if not isinstance(parsed, dict):
        return RawToolCall(name="", arguments=body)
    # The name as written, string or not: normalising pairs a bad one as invalid.
    return RawToolCall(name=parsed.get("name"), arguments=parsed.get("arguments"))


def _call_from_fenced(body: str) -> RawToolCall | None:
    """A fenced block is a call only when it is an object with "name" and "arguments"."""
    try:
        parsed = json.loads(body)
    except json.JSONDecodeError:
        return None
    if not isinstance(parsed, dict) or "arguments" not in parsed:
        return None
    name = parsed.get("name")
    if not isinstance(name, str):
        return None
    return RawToolCall(name=name, arguments=parsed["arguments"])


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
