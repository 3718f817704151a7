"""Target 1, the why: `python -X importtime` of rune-lsp up to its `initialize` result.

Each server runs under `-X importtime` until it answers `initialize`, then is killed, so only
the imports that the answer waited for are counted. A module is "beyond the floor" when the
bare pygls server never imports it; those are what lazy imports could take off the start-up.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.lsp_client import LspClient, server_env
from bench.results import Row, Section
from bench.session import REPO, Workspace, initialize_params
from bench.stats import Summary, ratio

FLOOR = (sys.executable, "-X", "importtime", str(REPO / "bench" / "floor_server.py"))
RUNE = (sys.executable, "-X", "importtime", "-m", "rune_lsp")


@dataclass(frozen=True)
class Imported:
    name: str
    self_us: int
    cumulative_us: int
    parent: str | None  # the module whose import triggered this one; None at top level


@dataclass(frozen=True)
class Cost:
    """A module's median import cost beyond the floor: its own time plus that of everything
    it pulled in that the floor never imports."""

    module: str
    cumulative_us: int
    self_us: int
    imported_by: str | None


def parse(stderr: str) -> list[Imported]:
    """The `-X importtime` lines, with each module's parent recovered from the indentation.

    CPython prints a module after everything it imported, indented one level less, so read
    backwards the parent is the nearest earlier line one level up.
    """
    rows: list[tuple[str, int, int, int]] = []
    for line in stderr.splitlines():
        if not line.startswith("import time:"):
            continue
        parts = line[len("import time:") :].split("|")
        if len(parts) != 3 or not parts[0].strip().isdigit():
            continue
        field = parts[2][1:]
        level = (len(field) - len(field.lstrip(" "))) // 2
        rows.append((field.strip(), int(parts[0]), int(parts[1]), level))
    imported: list[Imported] = []
    stack: list[tuple[int, str]] = []
    for name, self_us, cumulative_us, level in reversed(rows):
        while stack and stack[-1][0] >= level:
            stack.pop()
        parent = stack[-1][1] if stack else None
        imported.append(Imported(name, self_us, cumulative_us, parent))
        stack.append((level, name))
    imported.reverse()
    return imported


async def trace(argv: Sequence[str], workspace: Workspace, log: Path) -> list[Imported]:
    await asyncio.to_thread(log.unlink, missing_ok=True)
    client = await LspClient.spawn(argv, cwd=REPO, env=server_env(), stderr_path=log)
    try:
        await client.request("initialize", initialize_params(workspace.root), within=60)
    finally:
        # Killed, not shut down: imports after the answer are no part of the user's wait.
        client.process.kill()
        await client.process.wait()
        await client.close()
    return parse(await asyncio.to_thread(log.read_text, errors="replace"))


def beyond_floor(run: Sequence[Imported], floor: set[str]) -> dict[str, int]:
    """Per module, the self time of it and everything under it that the floor never imports.

    CPython's cumulative figure would also count pygls and lsprotocol to whichever rune
    module happened to import them first; this one counts only what rune adds.
    """
    parents = {item.name: item.parent for item in run}
    totals: dict[str, int] = defaultdict(int)
    for item in run:
        if item.name in floor:
            continue
        name: str | None = item.name
        while name is not None:
            totals[name] += item.self_us
            name = parents.get(name)
    return totals


def _median_costs(runs: Sequence[Sequence[Imported]], floor: set[str]) -> dict[str, Cost]:
    beyond: dict[str, list[int]] = defaultdict(list)
    own: dict[str, list[int]] = defaultdict(list)
    parents: dict[str, str | None] = {}
    for run in runs:
        totals = beyond_floor(run, floor)
        for item in run:
            if item.name in floor:
                continue
            beyond[item.name].append(totals[item.name])
            own[item.name].append(item.self_us)
            parents.setdefault(item.name, item.parent)
    return {
        name: Cost(
            name,
            int(statistics.median(values)),
            int(statistics.median(own[name])),
            parents[name],
        )
        for name, values in beyond.items()
    }


def _top_level_total(runs: Sequence[Sequence[Imported]]) -> int:
    return int(
        statistics.median(sum(i.cumulative_us for i in run if i.parent is None) for run in runs)
    )


@dataclass(frozen=True)
class PackageCost:
    """A third-party package beyond the floor: the summed cost of every subtree of it that a
    module outside it imported (pydantic's lazy attributes make several such subtrees)."""

    package: str
    cumulative_us: int
    imported_by: tuple[str, ...]


@dataclass(frozen=True)
class Findings:
    floor_total_us: int
    rune_total_us: int
    beyond_floor_self_us: int
    by_package_self_us: dict[str, int]
    top_packages: list[PackageCost]  # third-party packages beyond the floor, heaviest first
    top_external: list[Cost]  # the same, module by module
    top_rune: list[Cost]  # rune_lsp's own modules by cumulative time


def findings(
    floor_runs: Sequence[Sequence[Imported]],
    rune_runs: Sequence[Sequence[Imported]],
    top: int = 15,
) -> Findings:
    floor = {item.name for run in floor_runs for item in run}
    beyond = _median_costs(rune_runs, floor)
    packages: dict[str, int] = defaultdict(int)
    for name, cost in beyond.items():
        packages[name.split(".")[0]] += cost.self_us

    def is_entry(cost: Cost) -> bool:
        parent = cost.imported_by
        return parent is None or parent in floor or parent.startswith("rune_lsp")

    external = [c for n, c in beyond.items() if not n.startswith("rune_lsp") and is_entry(c)]
    own = [c for n, c in beyond.items() if n.startswith("rune_lsp")]
    grouped: dict[str, list[Cost]] = defaultdict(list)
    for cost in external:
        # importlib.metadata is beyond the floor though importlib is not: keep such names whole.
        top_level = cost.module.split(".")[0]
        grouped[cost.module if top_level in floor else top_level].append(cost)
    by_package = [
        PackageCost(
            package,
            sum(c.cumulative_us for c in costs),
            tuple(sorted({c.imported_by or "<top level>" for c in costs})),
        )
        for package, costs in grouped.items()
    ]
    return Findings(
        floor_total_us=_top_level_total(floor_runs),
        rune_total_us=_top_level_total(rune_runs),
        beyond_floor_self_us=sum(c.self_us for c in beyond.values()),
        by_package_self_us=dict(sorted(packages.items(), key=lambda kv: -kv[1])),
        top_packages=sorted(by_package, key=lambda c: -c.cumulative_us)[:top],
        top_external=sorted(external, key=lambda c: -c.cumulative_us)[:top],
        top_rune=sorted(own, key=lambda c: -c.cumulative_us)[:top],
    )


async def measure(repeats: int) -> tuple[list[list[Imported]], list[list[Imported]]]:
    with Workspace("rune-bench-imports-") as workspace:
        log = workspace.logs / "importtime.log"
        await trace(RUNE, workspace, log)  # compile .pyc files first, untimed
        await trace(FLOOR, workspace, log)
        floor_runs, rune_runs = [], []
        for _ in range(repeats):
            floor_runs.append(await trace(FLOOR, workspace, log))
            rune_runs.append(await trace(RUNE, workspace, log))
        return floor_runs, rune_runs


def section(
    floor_runs: Sequence[Sequence[Imported]], rune_runs: Sequence[Sequence[Imported]]
) -> tuple[Section, Findings]:
    found = findings(floor_runs, rune_runs)

    def totals(runs: Sequence[Sequence[Imported]]) -> Summary:
        return Summary.of(
            [sum(i.cumulative_us for i in run if i.parent is None) / 1000 for run in runs]
        )

    floor, rune = totals(floor_runs), totals(rune_runs)
    heaviest = ", ".join(
        f"{c.package} {c.cumulative_us / 1000:.0f} ms" for c in found.top_packages[:4]
    )
    rows = (
        Row("1 imports", "floor import time (-X importtime)", "ms", floor),
        Row(
            "1 imports",
            "rune-lsp import time up to initialize",
            "ms",
            rune,
            reference="floor",
            reference_value=floor,
            ratio=ratio(rune.median, floor.median),
            note=f"beyond the floor: {found.beyond_floor_self_us / 1000:.0f} ms of own time; "
            f"heaviest: {heaviest}",
        ),
    )
    return Section("1 imports", rows, details={"findings": found}), found


def run(repeats: int) -> tuple[Section, Findings]:
    floor_runs, rune_runs = asyncio.run(measure(repeats))
    return section(floor_runs, rune_runs)


def render(found: Findings) -> str:
    lines = [
        f"import time up to initialize: rune-lsp {found.rune_total_us / 1000:.0f} ms, "
        f"floor {found.floor_total_us / 1000:.0f} ms; modules beyond the floor cost "
        f"{found.beyond_floor_self_us / 1000:.0f} ms (sum of self times)",
        "by top-level package (self us, beyond the floor): "
        + ", ".join(f"{k} {v}" for k, v in list(found.by_package_self_us.items())[:10]),
        "third-party packages beyond the floor (cumulative us beyond floor <- imported by):",
    ]
    lines += [
        f"  {c.cumulative_us:>8}  {c.package} <- {', '.join(c.imported_by)}"
        for c in found.top_packages
    ]
    lines.append("rune_lsp modules (cumulative us beyond floor / self us <- imported by):")
    lines += [
        f"  {c.cumulative_us:>8} / {c.self_us:>6}  {c.module} <- {c.imported_by}"
        for c in found.top_rune
    ]
    return "\n".join(lines)
