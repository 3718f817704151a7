"""Target 4: what each model turn carries when a run reads eight 5,000-line files.

The double reports a context length of 8,192 tokens (`/api/show`), so every request must fit
the history budget rune derives from it (rune_lsp.loop.context_budget.history_budget), counted
with rune's own estimate over what actually went over the wire. The reference is a naive
client that replays the full history with every tool output uncapped: the same requests with
each tool message holding the whole numbered file.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.results import Row, Section
from bench.session import RuneSession, Workspace, bench_settings
from bench.stats import Summary, ratio
from bench.timed_double import timed_double
from rune_lsp.loop.context_budget import (
    MESSAGE_OVERHEAD_TOKENS,
    estimate_tokens,
    history_budget,
)
from tests.doubles.model_double import Call, ModelInfo, Reply

CONTEXT_LENGTH = 8_192
FILES = 8
LINES = 5_000


def source_file(index: int) -> str:
    return "".join(
        f"def function_{index}_{n}(value):  # line {n + 1}\n    return value * {n}\n"
        for n in range(LINES // 2)
    )


def numbered(text: str) -> str:
    """The whole file as read_file numbers it, with no window and no cap: the naive output."""
    lines = text.splitlines()
    width = max(4, len(str(len(lines))))
    return "\n".join(f"{n:>{width}} | {line}" for n, line in enumerate(lines, start=1))


def turns_script() -> list[Reply]:
    """8 iterations: the first turn reads two files, the next six one each, then an answer."""
    first = Reply(
        tool_calls=(
            Call("read_file", {"path": "f0.py"}),
            Call("read_file", {"path": "f1.py"}),
        )
    )
    rest = [Reply(tool_calls=(Call("read_file", {"path": f"f{i}.py"}),)) for i in range(2, FILES)]
    return [first, *rest, Reply(text="Read them all; nothing to change.")]


def sent_tokens(body: dict[str, Any]) -> int:
    """rune's estimate of a request: messages as `history_tokens` counts them, plus the tools."""
    tokens = estimate_tokens(json.dumps(body.get("tools") or [], separators=(",", ":")))
    for message in body.get("messages", []):
        tokens += MESSAGE_OVERHEAD_TOKENS + estimate_tokens(str(message.get("content") or ""))
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            tokens += estimate_tokens(str(function.get("name", "")))
            tokens += estimate_tokens(json.dumps(function.get("arguments")))
    return tokens


def size(body: dict[str, Any]) -> int:
    return len(json.dumps(body, separators=(",", ":")).encode())


def naive(body: dict[str, Any], outputs: Sequence[str]) -> dict[str, Any]:
    """The same request with the n-th tool message holding the n-th uncapped output."""
    messages = []
    seen = 0
    for message in body.get("messages", []):
        if message.get("role") == "tool":
            message = {**message, "content": outputs[seen]}
            seen += 1
        messages.append(message)
    return {**body, "messages": messages}


@dataclass(frozen=True)
class Turn:
    tokens: int
    bytes: int
    naive_bytes: int
    naive_tokens: int


async def measure() -> tuple[list[Turn], Any]:
    model = ModelInfo("qwen3:14b", context_length=CONTEXT_LENGTH)
    with timed_double(models=(model,)) as double, Workspace("rune-bench-context-") as workspace:
        texts = [source_file(i) for i in range(FILES)]
        for index, text in enumerate(texts):
            workspace.write(f"f{index}.py", text)
        outputs = [numbered(text) for text in texts]
        session = await RuneSession.start(workspace, bench_settings(double.ollama_url, workspace))
        try:
            session.open("main.py", "def main():\n    return 1\n")
            double.script(*turns_script())
            result = await session.fix("main.py")
        finally:
            await session.close()
        turns = []
        for request in double.chat_requests:
            full = naive(request.body, outputs)
            turns.append(
                Turn(sent_tokens(request.body), size(request.body), size(full), sent_tokens(full))
            )
        return turns, result


def section(turns: Sequence[Turn], result: Any) -> Section:
    budget = history_budget(CONTEXT_LENGTH)
    largest = max(turn.tokens for turn in turns)
    sent = sum(turn.bytes for turn in turns)
    replayed = sum(turn.naive_bytes for turn in turns)
    problem = None
    if result.get("outcome") != "completed" or len(turns) != FILES:
        problem = (
            f"run {result.get('outcome')} after {result.get('iterationsUsed')} iterations "
            f"({len(turns)} model requests): {result.get('error')}"
        )
    rows = (
        Row(
            "4 context",
            "largest model turn, estimated tokens (8 iterations, 8 x 5,000-line files)",
            "tokens",
            Summary.of([float(turn.tokens) for turn in turns]),
            reference=f"budget for {CONTEXT_LENGTH} ctx",
            reference_value=Summary.single(budget),
            ratio=ratio(largest, budget),
            goal="every turn <= budget",
            met=largest <= budget and problem is None,
            note=f"max {largest} tokens; the row shows the median [p25-p75] over the "
            f"{len(turns)} turns" + (f"; {problem}" if problem else ""),
        ),
        Row(
            "4 context",
            "total prompt bytes over the run",
            "KB",
            Summary.single(sent / 1024),
            reference="full-history replay, uncapped",
            reference_value=Summary.single(replayed / 1024),
            ratio=ratio(sent, replayed),
        ),
    )
    return Section(
        "4 context",
        rows,
        details={
            "budget_tokens": budget,
            "turns": [t.__dict__ for t in turns],
            "largest_naive_turn_tokens": max(t.naive_tokens for t in turns),
        },
    )


def run() -> Section:
    turns, result = asyncio.run(measure())
    return section(turns, result)
