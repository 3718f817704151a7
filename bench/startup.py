"""Target 1: spawn to `initialize` result, rune-lsp beside the floor and two peer servers.

Every server is started as a subprocess with the same Neovim-like `initialize` request written
to its stdin at once; the clock runs from before the spawn to the parsed response. Rounds
rotate the order, so no server always goes first (cold caches) or last.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.lsp_client import LspClient, cpu_seconds, server_env
from bench.peers import Peer
from bench.results import Row, Section
from bench.session import REPO, RUNE_ARGV, Workspace, initialize_params
from bench.stats import Summary, ratio

FLOOR_ARGV = (sys.executable, str(REPO / "bench" / "floor_server.py"))
TARGET = 1.15
FLOOR_NAME = "floor (bare pygls)"


@dataclass(frozen=True)
class Contender:
    name: str
    argv: tuple[str, ...]
    options: Any = None


@dataclass(frozen=True)
class Sample:
    wall_s: float  # spawn to the parsed `initialize` result
    cpu_s: float  # CPU time the server had used by then


async def time_initialize(contender: Contender, workspace: Workspace) -> Sample:
    """Spawn to the `initialize` result; the server is then shut down untimed."""
    params = initialize_params(workspace.root, contender.options)
    started = time.perf_counter()
    client = await LspClient.spawn(
        contender.argv,
        cwd=workspace.root,
        env=server_env(),
        stderr_path=workspace.logs / f"startup-{contender.name}.log",
    )
    try:
        await client.request("initialize", params, within=60)
        elapsed = time.perf_counter() - started
        cpu = cpu_seconds(client.pid)
        client.notify("initialized", {})
    finally:
        await client.close()
    return Sample(elapsed, cpu)


def contenders(workspace: Workspace, peers: Sequence[Peer]) -> list[Contender]:
    rune_options = {"rune": {"stateDir": str(workspace.state_dir)}}
    return [
        Contender(FLOOR_NAME, FLOOR_ARGV),
        Contender("rune-lsp", RUNE_ARGV, rune_options),
        *(Contender(peer.name, peer.argv) for peer in peers),
    ]


async def measure(rounds: int, peers: Sequence[Peer]) -> dict[str, list[Sample]]:
    with Workspace("rune-bench-startup-") as workspace:
        workspace.write("main.py", "print('hello')\n")
        field = contenders(workspace, peers)
        for contender in field:  # warm the page cache and the .pyc files, untimed
            await time_initialize(contender, workspace)
        samples: dict[str, list[Sample]] = {c.name: [] for c in field}
        for index in range(rounds):
            shift = index % len(field)
            for contender in field[shift:] + field[:shift]:
                samples[contender.name].append(await time_initialize(contender, workspace))
        return samples


def _rows(samples: dict[str, list[Sample]], kind: str) -> list[Row]:
    def ms(values: Sequence[Sample]) -> Summary:
        return Summary.of([(v.wall_s if kind == "wall" else v.cpu_s) * 1000 for v in values])

    what = "spawn->initialize" if kind == "wall" else "CPU time to initialize"
    floor = ms(samples[FLOOR_NAME])
    rows = [Row("1 start-up", f"{FLOOR_NAME} {what}", "ms", floor)]
    for name, values in samples.items():
        if name == FLOOR_NAME:
            continue
        value = ms(values)
        relative = ratio(value.median, floor.median)
        targeted = name == "rune-lsp"
        rows.append(
            Row(
                "1 start-up",
                f"{name} {what}",
                "ms",
                value,
                reference="floor",
                reference_value=floor,
                ratio=relative,
                goal=f"<= {TARGET}x floor" if targeted else "",
                met=(relative is not None and relative <= TARGET) if targeted else None,
                note="the same ratio in CPU time (all threads, /proc schedstat), which load "
                "from other processes barely moves"
                if targeted and kind == "cpu"
                else "",
            )
        )
    return rows


def section(samples: dict[str, list[Sample]], peer_error: str | None) -> Section:
    return Section(
        "1 start-up",
        tuple(_rows(samples, "wall") + _rows(samples, "cpu")),
        details={
            "samples_ms": {
                name: [
                    {"wall": round(v.wall_s * 1000, 2), "cpu": round(v.cpu_s * 1000, 2)}
                    for v in values
                ]
                for name, values in samples.items()
            }
        },
        error=f"peers unavailable: {peer_error}" if peer_error else None,
    )


def run(rounds: int, peers: Sequence[Peer], peer_error: str | None) -> Section:
    return section(asyncio.run(measure(rounds, peers)), peer_error)
