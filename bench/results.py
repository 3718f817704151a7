"""What a bench section reports: typed rows, the printed table and bench/results.json."""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.stats import Summary


@dataclass(frozen=True)
class Row:
    """One measured figure beside its reference, with the target it is held to.

    `met` is None when the row is informational (no target), or when it could not be measured.
    """

    target: str  # "1 start-up", "2 loop", ...
    measure: str
    unit: str
    value: Summary | None
    reference: str = ""
    reference_value: Summary | None = None
    ratio: float | None = None
    goal: str = ""
    met: bool | None = None
    note: str = ""


@dataclass(frozen=True)
class Section:
    """A section's rows, plus free-form details that only go to results.json."""

    name: str
    rows: tuple[Row, ...]
    details: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def _fmt(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}" if abs(value) >= 0.1 else f"{value:.3f}"


def describe(summary: Summary | None) -> str:
    if summary is None:
        return "-"
    if summary.n == 1 or summary.p25 == summary.p75:
        return _fmt(summary.median)
    return f"{_fmt(summary.median)} [{_fmt(summary.p25)}-{_fmt(summary.p75)}]"


def verdict(row: Row) -> str:
    if not row.goal:
        return ""
    if row.met is None:
        return "n/a"
    return "met" if row.met else "NOT met"


HEADER = (
    "#",
    "measure",
    "median [p25-p75]",
    "unit",
    "reference",
    "ref median [p25-p75]",
    "ratio",
    "target",
    "",
)


def table(sections: Sequence[Section]) -> str:
    lines: list[tuple[str, ...]] = [HEADER]
    for section in sections:
        if section.error:
            lines.append((section.name, f"FAILED: {section.error}", "", "", "", "", "", "", ""))
        for row in section.rows:
            lines.append(
                (
                    row.target,
                    row.measure,
                    describe(row.value),
                    row.unit,
                    row.reference,
                    describe(row.reference_value),
                    "-" if row.ratio is None else f"{row.ratio:.2f}x",
                    row.goal,
                    verdict(row),
                )
            )
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADER))]
    rendered = [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in lines
    ]
    rendered.insert(1, "  ".join("-" * width for width in widths))
    notes = [
        f"  {row.target} {row.measure}: {row.note}"
        for section in sections
        for row in section.rows
        if row.note
    ]
    return "\n".join(rendered + (["", "notes:", *notes] if notes else []))


def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
    }


#: Parts of results.json written by runs of their own (`--only effect`): kept when the
#: performance sections are rewritten.
SEPARATE_PARTS = ("effect",)


def write_json(path: Path, sections: Sequence[Section], meta: dict[str, Any]) -> None:
    payload = {
        **meta,
        "machine": machine(),
        "sections": [dataclasses.asdict(section) for section in sections],
    }
    if path.is_file():
        previous = json.loads(path.read_text())
        payload.update({k: previous[k] for k in SEPARATE_PARTS if k in previous})
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(payload, indent=2, default=str) + "\n")
    temporary.replace(path)
