"""What the model is told about calling tools: the text protocol it may write calls in, the
corrective turns of the protocol choice (loop/protocol_choice.py), and how to answer shorter
after a cut. The calls themselves are read back by `text.parse_text_turn`."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class Described(Protocol):
    """A tool as the protocol prompt describes it (loop/messages.ToolSpec is one)."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def parameters(self) -> Mapping[str, Any]: ...


#: The tool the corrective turns show; a run without it has nothing to coach towards.
EDIT_TOOL = "edit_file"
#: How a turn offered tools is asked to answer shorter after a cut.
CALLS_CUT_ADVICE = (
    "Answer shorter: call one tool at a time, change a file with edit_file (only the lines "
    "that change, not the whole file), and keep explanations to a few sentences."
)


def protocol_prompt(specs: Sequence[Described]) -> str:
    """The text protocol: each tool's signature and the one call format it asks for."""
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


def format_call(name: str, arguments: Any) -> str:
    """A call in the text protocol's own spelling (how the history shows a call made)."""
    payload = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    return f"<tool_call>{payload}</tool_call>"


def coaching_notice(path: str) -> str:
    """The first corrective turn, after a tools turn answered in prose.

    Imperative and short, the call's shape spelled out with the task's own path: measured on
    Qwen2.5-Coder-1.5B, a polite explanation got the same prose answer again, this wording a
    call. "Without line numbers": small models copy the excerpt's `  3 | ` prefixes."""
    call = {
        "name": EDIT_TOOL,
        "arguments": {
            "path": path,
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


def switch_notice(path: str) -> str:
    """The second corrective turn, as the run moves to the text protocol."""
    call = {"name": EDIT_TOOL, "arguments": {"path": path, "old_text": "...", "new_text": "..."}}
    return (
        "[rune] Still nothing was changed. Reply with only a tool call written exactly like "
        f"this, on its own line: <tool_call>{json.dumps(call)}</tool_call> (the tools are "
        "listed in the system message)."
    )


def _signature(spec: Described) -> str:
    """`- name(arg: type, opt?: type): description. arg: its description.` Its schema's
    types and descriptions in a third of the JSON's tokens: small models pay for every one."""
    properties: Mapping[str, Any] = spec.parameters.get("properties", {})
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
