"""Target 6: `textDocument/codeAction` latency while idle and while 4 runs stream.

The load is four `rune.fixThis` runs on four documents (a new run on the same document would
supersede the old one), each streaming a long answer a word every `CHUNK_DELAY` seconds from
a double in its own process. Code actions are timed one after another, first with nothing
running, then while all four runs stream; the runs are then cancelled.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.results import Row, Section
from bench.session import REPO, RuneSession, Workspace, bench_settings
from bench.stats import Summary, percentile, ratio

RUNS = 4
CHUNK_DELAY = 0.01  # 100 words a second per run: a fast local model
WORDS = 6_000  # a minute of streaming, far longer than the measurement
TARGET = 2.0
DOUBLE = (sys.executable, str(REPO / "bench" / "double_process.py"))


class SlowDouble:
    """The double process: its port, and a count of the chat requests it has received."""

    def __init__(self, process: asyncio.subprocess.Process, port: int) -> None:
        self.process = process
        self.port = port
        self.chats = 0
        self._arrived = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def start(cls) -> SlowDouble:
        process = await asyncio.create_subprocess_exec(
            *DOUBLE,
            str(WORDS),
            str(CHUNK_DELAY),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode().split()
        if len(line) != 2 or line[0] != "port":
            process.kill()
            raise RuntimeError(f"the double process did not start: {line}")
        return cls(process, int(line[1]))

    async def _read(self) -> None:
        assert self.process.stdout is not None
        async for _ in self.process.stdout:
            self.chats += 1
            self._arrived.set()

    async def wait_for_chats(self, count: int, within: float) -> None:
        deadline = time.monotonic() + within
        while self.chats < count:
            self._arrived.clear()
            await asyncio.wait_for(self._arrived.wait(), max(deadline - time.monotonic(), 0.01))

    async def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 5)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
        self._reader.cancel()


async def latencies(session: RuneSession, name: str, count: int) -> list[float]:
    params = session.code_action_params(name)
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        await session.client.request("textDocument/codeAction", params)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


@dataclass(frozen=True)
class Round:
    idle: list[float]
    loaded: list[float]
    runs_alive: bool  # all four runs were still streaming when the loaded phase ended
    outcomes: list[str]


async def measure(rounds: int, samples: int) -> list[Round]:
    double = await SlowDouble.start()
    try:
        with Workspace("rune-bench-responsive-") as workspace:
            url = f"http://127.0.0.1:{double.port}"
            session = await RuneSession.start(workspace, bench_settings(url, workspace))
            try:
                session.open("idle.py", "def idle():\n    return 0\n")
                for index in range(RUNS):
                    session.open(f"run{index}.py", f"def run_{index}():\n    return {index}\n")
                await latencies(session, "idle.py", 20)  # warm-up
                return [await _round(session, double, samples) for _ in range(rounds)]
            finally:
                await session.close()
    finally:
        await double.stop()


async def _round(session: RuneSession, double: SlowDouble, samples: int) -> Round:
    """An idle phase, then a loaded one; alternating rounds share the machine's ups and downs."""
    idle = await latencies(session, "idle.py", samples)
    chats_before = double.chats
    started: list[tuple[int, asyncio.Future[Any]]] = [
        session.client.send_request("workspace/executeCommand", session.fix_params(f"run{i}.py"))
        for i in range(RUNS)
    ]
    await double.wait_for_chats(chats_before + RUNS, within=30)
    await asyncio.sleep(0.5)  # every run is past its first streamed words
    loaded = await latencies(session, "idle.py", samples)
    runs_alive = not any(future.done() for _, future in started)
    for request_id, _ in started:
        session.client.notify("$/cancelRequest", {"id": request_id})
    outcomes = []
    for _, future in started:
        try:
            result = await asyncio.wait_for(future, 30)
            outcomes.append(str(result.get("outcome")))
        except Exception as exc:  # pygls answers a cancelled request with an error
            outcomes.append(f"error: {exc}")
    return Round(idle, loaded, runs_alive, outcomes)


def per_round(rounds: Sequence[Round], phase: str, pct: float) -> Summary:
    return Summary.of([percentile(getattr(r, phase), pct) for r in rounds])


def section(rounds: Sequence[Round]) -> Section:
    idle99, load99 = per_round(rounds, "idle", 99), per_round(rounds, "loaded", 99)
    idle50, load50 = per_round(rounds, "idle", 50), per_round(rounds, "loaded", 50)
    relative = ratio(load99.median, idle99.median)
    alive = all(r.runs_alive for r in rounds)
    count = len(rounds[0].idle)
    rows = (
        Row(
            "6 respons.",
            "codeAction p50 under load (4 streaming runs)",
            "ms",
            load50,
            reference="p50 idle",
            reference_value=idle50,
            ratio=ratio(load50.median, idle50.median),
        ),
        Row(
            "6 respons.",
            "codeAction p99 under load (4 streaming runs)",
            "ms",
            load99,
            reference="p99 idle",
            reference_value=idle99,
            ratio=relative,
            goal=f"<= {TARGET:g}x idle p99",
            met=relative is not None and relative <= TARGET and alive,
            note=f"p50/p99 of {count} requests per phase; median [p25-p75] over "
            f"{len(rounds)} idle/loaded rounds"
            + ("" if alive else "; a run ended before its loaded phase did"),
        ),
    )
    pooled_idle = [v for r in rounds for v in r.idle]
    pooled_loaded = [v for r in rounds for v in r.loaded]
    details = {
        "chunk_delay_s": CHUNK_DELAY,
        "pooled_idle_p50_p90_p99_max": [percentile(pooled_idle, p) for p in (50, 90, 99)]
        + [max(pooled_idle)],
        "pooled_loaded_p50_p90_p99_max": [percentile(pooled_loaded, p) for p in (50, 90, 99)]
        + [max(pooled_loaded)],
        "rounds": [r.__dict__ for r in rounds],
    }
    return Section("6 responsiveness", rows, details=details)


def run(rounds: int, samples: int) -> Section:
    return section(asyncio.run(measure(rounds, samples)))
