"""The effect report over several rounds: each round's fixed count and each task's, so a change
is read against what sampling alone moves."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.effect.bench import Attempt, EffectReport, run, summarize
from bench.effect.report import by_task, table

DONE = Attempt(
    arm="rune_check", task="01_a", kind="k", fixed=True, outcome="completed", detail="",
    seconds=1.0, requests=1, unfinished_requests=0, prompt_tokens=10, processed_tokens=10,
    cached_tokens=0, completion_tokens=1, longest_request_s=1.0, first_prompt_tokens=10,
)  # fmt: skip


def rounds() -> list[Attempt]:
    # Round 1 fixes 01_a; round 2 fixes both; round 3 neither; the blind arm never.
    fixed = {(1, "01_a"): True, (2, "01_a"): True, (2, "02_b"): True}
    return [
        replace(DONE, arm=arm, task=task, round=r, fixed=arm == "rune_check" and (r, task) in fixed)
        for r in (1, 2, 3)
        for task in ("01_a", "02_b")
        for arm in ("rune_blind", "rune_check")
    ]


def report(attempts: list[Attempt], count: int) -> EffectReport:
    arms = ("rune_blind", "rune_check")
    return EffectReport(
        model="m", started_at="now", elapsed_s=1.0, arms=arms, tasks=("01_a", "02_b"),
        unsound=(), summaries=tuple(summarize(a, attempts) for a in arms),
        attempts=tuple(attempts), rounds=count,
    )  # fmt: skip


def test_each_rounds_fixed_count_is_shown_beside_the_total() -> None:
    summary = summarize("rune_check", rounds())

    assert (summary.fixed, summary.tasks, summary.fixed_per_round) == (3, 6, (1, 2, 0))
    assert "| rune_check | 3/6 (1, 2, 0) |" in table(report(rounds(), 3))


def test_each_task_says_in_how_many_rounds_each_arm_fixed_it() -> None:
    shown = by_task(report(rounds(), 3))

    assert "| task (fixed in how many of 3 rounds) | rune_blind | rune_check |" in shown
    assert "| 01_a | 0 | 2 |" in shown and "| 02_b | 0 | 1 |" in shown


def test_one_round_reads_as_before() -> None:
    once = [a for a in rounds() if a.round == 2]

    assert summarize("rune_check", once).fixed_per_round == ()
    assert by_task(report(once, 1)) == ""
    assert "| rune_check | 2/2 |" in table(report(once, 1))


def test_no_rounds_is_refused_before_any_server_starts() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        run("qwen-1.5b", None, ["rune_check"], repeat=0)
