"""What rune-lsp's first request costs before the model reads the task, in the model's tokens.

Counted by the serving llama-server itself (`/apply-template` renders the request with the
model's chat template, `/tokenize` counts it), on the request rune builds: the same system
message, the same six tool schemas, the same text-protocol prompt. Differences between two
renderings give each part, so the chat template's own framing is not charged to any of them.

    .venv/bin/python -m bench.effect.preamble http://127.0.0.1:18090   # a running llama-server
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from typing import Any

import httpx

from rune_lsp.answers.calls.prompts import protocol_prompt
from rune_lsp.answers.table import system_text
from rune_lsp.loop.fallback import render_for_text_protocol
from rune_lsp.loop.messages import Message
from rune_lsp.loop.task import FixTask
from rune_lsp.providers.openai_wire import wire_message, wire_tool
from rune_lsp.tools.catalog import TOOLS

#: A task like the effect bench's: a six-line program and its blind instruction.
EXAMPLE = FixTask(
    path="prog.py",
    text='def sum_to_n(n):\n    """Return 1 + 2 + ... + n (0 when n is 0)."""\n    total = 0\n'
    "    for i in range(1, n):\n        total += i\n    return total\n",
    instruction="There is a bug in this program. Fix it.",
)


@dataclass(frozen=True)
class Preamble:
    """Tokens of rune's first request on EXAMPLE, and of its parts."""

    request: int  # the whole first request with native tools, as the server renders it
    system: int  # the system message's text
    tools: int  # what the tool schemas add to the request (native tools)
    text_protocol: int  # what the text protocol's prompt adds instead (no native tools)
    task: int  # the task message's text
    per_tool: dict[str, int]  # each tool's schema alone, as the template prints it
    #: The code-first turn's whole request (`firstTurn: code`, the default): its own system
    #: message, the task, no tool schemas and no text protocol (answers/table.py).
    code_first_request: int = 0

    @property
    def before_task(self) -> int:
        """Everything but the task: what every run pays whatever its file."""
        return self.request - self.task

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "before_task": self.before_task}

    def summary(self) -> str:
        return (
            f"rune-lsp's first request: {self.request} tokens, {self.before_task} before the "
            f"task (system prompt {self.system}, tool schemas {self.tools}; the text protocol "
            f"instead of the schemas: {self.text_protocol}); the code-first turn's request "
            f"(no tools): {self.code_first_request}"
        )


class Counter:
    """Token counts from one llama-server (its base URL without /v1)."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client

    def text(self, content: str) -> int:
        answer = self.client.post(
            "/tokenize", json={"content": content, "add_special": False, "parse_special": True}
        )
        answer.raise_for_status()
        return len(answer.json()["tokens"])

    def request(self, messages: list[Message], tools: list[dict[str, Any]]) -> int:
        body: dict[str, Any] = {"messages": [wire_message(m) for m in messages]}
        if tools:
            body["tools"] = tools
        answer = self.client.post("/apply-template", json=body)
        answer.raise_for_status()
        return self.text(answer.json()["prompt"])


def measure(base_url: str, *, transport: httpx.BaseTransport | None = None) -> Preamble:
    """Raises httpx.HTTPError when the server does not answer (`transport`: for tests)."""
    specs = [tool.spec for tool in TOOLS]
    wired = [wire_tool(spec) for spec in specs]
    system = system_text("tools")
    task = EXAMPLE.prompt()
    messages = [Message(role="system", content=system), Message(role="user", content=task)]
    root = base_url.rstrip("/").removesuffix("/v1")
    with httpx.Client(base_url=root, timeout=60, transport=transport) as client:
        count = Counter(client)
        native = count.request(messages, wired)
        bare = count.request(messages, [])
        text = count.request(render_for_text_protocol(messages, protocol_prompt(specs)), [])
        code_first = [Message(role="system", content=system_text("code_first")), messages[1]]
        return Preamble(
            request=native,
            system=count.text(system),
            tools=native - bare,
            text_protocol=text - bare,
            task=count.text(task),
            per_tool={s.name: count.text(json.dumps(w)) for s, w in zip(specs, wired, strict=True)},
            code_first_request=count.request(code_first, []),
        )


if __name__ == "__main__":
    measured = measure(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080")
    print(measured.summary())
    print(json.dumps(measured.as_json(), indent=2))
