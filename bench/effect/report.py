"""The effect bench's outputs: a table, bench/results.json's `effect` part, and the section of
docs/performance.md between its effect markers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.effect.bench import ArmSummary, EffectReport
from bench.results import machine

BEGIN = "<!-- effect:begin (written by bench/run.py --only effect) -->"
END = "<!-- effect:end -->"
HEADER = (
    "| arm | fixed | requests | prompt tok | cached | processed | completion | prompt tok / fix "
    "| prompt tok / request | first request | wall median / max (s) | longest request (s) "
    "| outcomes |"
)


def row(summary: ArmSummary) -> str:
    per_fix = _tokens(summary.prompt_tokens_per_fixed)
    unfinished = f" ({summary.unfinished_requests} cut)" if summary.unfinished_requests else ""
    outcomes = ", ".join(f"{count} {what}" for what, count in sorted(summary.outcomes.items()))
    return (
        f"| {summary.arm} | {_fixed(summary)} | {summary.requests}{unfinished} "
        f"| {summary.prompt_tokens} | {summary.cached_tokens} | {summary.processed_tokens} "
        f"| {summary.completion_tokens} | {per_fix} "
        f"| {_tokens(summary.prompt_tokens_per_request)} | {_tokens(summary.first_prompt_median)} "
        f"| {summary.wall_median_s:.0f} / {summary.wall_max_s:.0f} "
        f"| {summary.longest_request_s:.0f} | {outcomes} |"
    )


def _fixed(summary: ArmSummary) -> str:
    """`5/11`, or over rounds `14/33 (4, 5, 5)`: each round's count shows the spread."""
    rounds = summary.fixed_per_round
    spread = f" ({', '.join(str(n) for n in rounds)})" if rounds else ""
    return f"{summary.fixed}/{summary.tasks}{spread}"


def by_task(report: EffectReport) -> str:
    """Over more than one round, in how many each arm fixed each task; else nothing."""
    if report.rounds < 2:
        return ""
    counts = {arm: report.fixed_by_task(arm) for arm in report.arms}
    lines = [
        f"| task (fixed in how many of {report.rounds} rounds) | {' | '.join(report.arms)} |",
        "|---|" + "---|" * len(report.arms),
    ]
    lines += [
        f"| {task} | {' | '.join(str(counts[arm][task]) for arm in report.arms)} |"
        for task in report.tasks
    ]
    return "\n".join(lines)


def _tokens(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def table(report: EffectReport) -> str:
    lines = [HEADER, "|" + "|".join("---" for _ in range(HEADER.count("|") - 1)) + "|"]
    lines += [row(s) for s in report.summaries]
    tasks = by_task(report)
    return "\n".join([*lines, *(["", tasks] if tasks else [])])


def markdown(report: EffectReport, command: str) -> str:
    info = machine()
    unsound = f" Unsound tasks left out: {', '.join(report.unsound)}." if report.unsound else ""
    preamble = f"{report.preamble.summary()}, counted by the server." if report.preamble else ""
    return "\n".join(
        [
            BEGIN,
            f"Model `{report.model}`, {len(report.tasks)} tasks{_rounds(report)} "
            f"({', '.join(report.tasks)}), started {report.started_at}, "
            f"{report.elapsed_s / 60:.0f} min in all, on {info['nproc']} x {info['cpu']}.{unsound}",
            "",
            f"    {command}",
            "",
            table(report),
            *(["", preamble] if preamble else []),
            END,
        ]
    )


def _rounds(report: EffectReport) -> str:
    return f" in {report.rounds} rounds" if report.rounds > 1 else ""


def write_results(path: Path, report: EffectReport) -> None:
    """Put the report under `effect` in results.json, keeping the other sections' results."""
    payload: dict[str, Any] = {}
    if path.is_file():
        payload = json.loads(path.read_text(encoding="utf-8"))
    payload["effect"] = {**report.as_json(), "machine": machine()}
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    temporary.replace(path)


def write_doc(path: Path, report: EffectReport, command: str) -> None:
    """Replace the effect section of the doc (between its markers) with this run."""
    text = path.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise ValueError(f"{path} has no effect markers ({BEGIN} ... {END})")
    before, rest = text.split(BEGIN, 1)
    _, after = rest.split(END, 1)
    path.write_text(before + markdown(report, command) + after, encoding="utf-8")
