"""Target 3: RSS of one server process over many consecutive runs.

Each run is a short `rune.fixThis` (one read_file, then an answer). VmRSS is read from
/proc/<pid>/status after the first `settle` runs (caches, pools and lazily imported modules
are warm by then) and every `every` runs after; the growth from the settled point to the end
is what a long editor session would accumulate.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from bench.lsp_client import LspClient, rss_kib, server_env
from bench.results import Row, Section
from bench.session import REPO, RuneSession, Workspace, bench_settings, initialize_params
from bench.startup import FLOOR_ARGV
from bench.stats import Summary, ratio
from bench.timed_double import timed_double
from tests.doubles.model_double import Call, Reply

TARGET_MB = 10.0
SETTLE = 50


@dataclass(frozen=True)
class Sample:
    runs: int
    rss_kib: int


async def measure_rune(runs: int, every: int) -> tuple[list[Sample], list[str]]:
    with timed_double() as double, Workspace("rune-bench-memory-") as workspace:
        workspace.write("a.py", "".join(f"value_{n} = {n}\n" for n in range(200)))
        session = await RuneSession.start(workspace, bench_settings(double.ollama_url, workspace))
        problems: list[str] = []
        try:
            session.open("main.py", "def main():\n    return 1\n")
            samples = [Sample(0, rss_kib(session.pid))]
            for index in range(1, runs + 1):
                double.script(
                    Reply(tool_calls=(Call("read_file", {"path": "a.py"}),)),
                    Reply(text="Looks fine."),
                )
                result = await session.fix("main.py")
                if result.get("outcome") != "completed" and len(problems) < 5:
                    problems.append(f"run {index}: {result.get('outcome')}: {result.get('error')}")
                if index in (SETTLE, runs) or (index > SETTLE and index % every == 0):
                    samples.append(Sample(index, rss_kib(session.pid)))
            return samples, problems
        finally:
            await session.close()


async def floor_rss() -> int:
    with Workspace("rune-bench-floor-") as workspace:
        client = await LspClient.spawn(FLOOR_ARGV, cwd=REPO, env=server_env())
        try:
            await client.request("initialize", initialize_params(workspace.root))
            client.notify("initialized", {})
            await asyncio.sleep(0.2)
            return rss_kib(client.pid)
        finally:
            await client.close()


def section(samples: Sequence[Sample], problems: Sequence[str], floor_kib: int) -> Section:
    settled = next(s for s in samples if s.runs >= SETTLE)
    last = samples[-1]
    growth_mb = (last.rss_kib - settled.rss_kib) / 1024
    after = [s.rss_kib / 1024 for s in samples if s.runs >= SETTLE]
    spread = Summary(median=Summary.of(after).median, p25=min(after), p75=max(after), n=len(after))
    floor = Summary.single(floor_kib / 1024)
    rows = (
        Row(
            "3 memory",
            f"RSS growth, run {settled.runs} -> run {last.runs}",
            "MB",
            Summary.single(growth_mb),
            reference=f"RSS after run {settled.runs}",
            reference_value=Summary.single(settled.rss_kib / 1024),
            ratio=ratio(last.rss_kib, settled.rss_kib),
            goal=f"<= {TARGET_MB:g} MB",
            met=growth_mb <= TARGET_MB and not problems,
            note="; ".join(problems) if problems else "",
        ),
        Row(
            "3 memory",
            f"RSS over runs {settled.runs}..{last.runs} (median [min-max])",
            "MB",
            spread,
            reference="floor RSS after initialize",
            reference_value=floor,
            ratio=ratio(spread.median, floor.median),
        ),
    )
    details = {"samples": [s.__dict__ for s in samples], "floor_rss_kib": floor_kib}
    return Section("3 memory", rows, details=details)


async def measure(runs: int) -> Section:
    samples, problems = await measure_rune(runs, every=max(runs // 20, 10))
    return section(samples, problems, await floor_rss())


def run(runs: int) -> Section:
    return asyncio.run(measure(runs))
