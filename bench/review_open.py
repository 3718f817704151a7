"""Target 6b: `textDocument/codeAction` (and `inlayHint`) latency with a per-hunk review open.

A Neovim-like client (review mode B) opens a 2,000-line file; code actions on a changed line are
timed with no review open, then while a pending edit of three hunks is shown there (one
diagnostic per hunk, hints, lenses), then again after the user typed a line above the hunks
(they moved). The run is then cancelled, which withdraws the review.

    .venv/bin/python -m bench.review_open [SAMPLES]
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from typing import Any

from bench.results import Row, Section
from bench.session import RuneSession, Workspace, bench_settings
from bench.stats import Summary, percentile, ratio
from tests.doubles.model_double import Call, ModelDouble, Reply

LINES = 2_000
TARGET = 2.0  # the loaded phase may cost at most twice the idle p99
HUNK_LINES = (500, 1_000, 1_500)


def sample() -> tuple[str, str]:
    old = "".join(f"    value_{i} = compute({i})\n" for i in range(LINES))
    new = old
    for line in HUNK_LINES:
        new = new.replace(f"value_{line} = compute({line})", f"value_{line} = changed({line})")
    return old, new


def params(uri: str, line: int) -> dict[str, Any]:
    span = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 4}}
    return {"textDocument": {"uri": uri}, "range": span, "context": {"diagnostics": []}}


async def timed(session: RuneSession, method: str, body: dict[str, Any], count: int) -> list[float]:
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        await session.client.request(method, body)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def shows_the_hunk(session: RuneSession, action: dict[str, Any]) -> None:
    """The timed requests really are answered with the review's actions (not just Fix this)."""
    deadline = time.monotonic() + 10
    while True:
        answer = await session.client.request("textDocument/codeAction", action)
        if any(item.get("title") == "Accept hunk" for item in answer or ()):
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"no review actions on the hunk: {answer}")
        await asyncio.sleep(0.01)


async def measure(samples: int) -> dict[str, list[float]]:
    old, new = sample()
    with ModelDouble() as double, Workspace("rune-bench-review-") as workspace:
        double.script(
            Reply(
                tool_calls=(
                    Call("edit_file", {"path": "big.py", "old_text": old, "new_text": new}),
                )
            )
        )
        session = await RuneSession.start(workspace, bench_settings(double.ollama_url, workspace))
        try:
            uri = session.open("big.py", old)
            action = params(uri, HUNK_LINES[1])
            hints = {"textDocument": {"uri": uri}, "range": action["range"]}
            await timed(session, "textDocument/codeAction", action, 20)  # warm-up
            phases = {"idle": await timed(session, "textDocument/codeAction", action, samples)}
            request_id, run = session.client.send_request(
                "workspace/executeCommand", session.fix_params("big.py")
            )
            await shows_the_hunk(session, action)
            phases["review"] = await timed(session, "textDocument/codeAction", action, samples)
            phases["hints"] = await timed(session, "textDocument/inlayHint", hints, samples)
            session.client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": 2},
                    "contentChanges": [
                        {
                            "range": {
                                "start": {"line": 0, "character": 0},
                                "end": {"line": 0, "character": 0},
                            },
                            "text": "import os\n",
                        }
                    ],
                },
            )
            moved = params(uri, HUNK_LINES[1] + 1)
            await shows_the_hunk(session, moved)
            phases["moved"] = await timed(session, "textDocument/codeAction", moved, samples)
            session.client.notify("$/cancelRequest", {"id": request_id})
            with contextlib.suppress(Exception):  # pygls answers a cancel with an error
                await asyncio.wait_for(run, 30)
            return phases
        finally:
            await session.close()


def section(phases: dict[str, list[float]]) -> Section:
    idle99 = percentile(phases["idle"], 99)
    rows = []
    for phase, what in (
        ("review", "codeAction p99, a 3-hunk review open"),
        ("moved", "codeAction p99, after typing moved the hunks"),
        ("hints", "inlayHint p99, a 3-hunk review open"),
    ):
        p99 = percentile(phases[phase], 99)
        relative = ratio(p99, idle99)
        rows.append(
            Row(
                "6 respons.",
                what,
                "ms",
                Summary.of([p99]),
                reference="codeAction p99, no review",
                reference_value=Summary.of([idle99]),
                ratio=relative,
                goal=f"<= {TARGET:g}x idle p99",
                met=relative is not None and relative <= TARGET,
                note=f"{len(phases[phase])} requests, {LINES}-line file",
            )
        )
    details = {phase: [percentile(v, p) for p in (50, 90, 99)] for phase, v in phases.items()}
    return Section("6b review open", tuple(rows), details=details)


def run(samples: int) -> Section:
    return section(asyncio.run(measure(samples)))


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    for phase, values in asyncio.run(measure(count)).items():
        shown = ", ".join(f"p{p} {percentile(values, p):.2f} ms" for p in (50, 90, 99))
        print(f"{phase:>7}: {shown} (max {max(values):.2f} ms, n={len(values)})")
