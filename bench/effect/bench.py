"""The effect bench: does the agent fix the bug? rune-lsp and Aider, same server, same model.

    .venv/bin/python bench/run.py --only effect                      # every task, every arm
    .venv/bin/python bench/run.py --only effect --tasks 8 --model qwen-0.5b
    .venv/bin/python bench/run.py --only effect --arms rune_check,aider_pasted
    .venv/bin/python bench/run.py --only effect --corpus multi --arms rune_blind,rune_check
    .venv/bin/python bench/run.py --only effect --corpus real --real-bugs-dir ~/ConDefects
    .venv/bin/python bench/run.py --only effect --corpus release --no-doc
    .venv/bin/python bench/run.py --only effect --corpus release_multi --no-doc
    .venv/bin/python bench/run.py --only effect --corpus multi --arms rune_check --repeat 3

One llama-server (the fetched Qwen2.5-Coder, `scripts/llama-server model NAME`) behind a
counting proxy; for each task, each arm in turn on a fresh copy of the program and its test
(interleaved, so a busy machine slows every arm alike). A task counts as fixed when the task's
own test (never the workspace's copy) passes on the program the agent left. Every task used is
first checked to fail before and pass after its reference fix; an unsound task is reported and
left out. Nothing here asserts: the numbers are the result.

One run of a small corpus moves by a task or two from sampling alone (docs/performance.md,
"Multi-file corpus"): `repeat` runs every task and arm that many rounds, each round on a
server started anew with its own seed (`SEED`, `SEED + 1`, ...), and the report gives the
fixed count of each round and of each task, so a change is read against the spread.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import httpx

from bench.effect import arms as arm_commands
from bench.effect.arms import ARMS, EXTRA_ARMS, Endpoint
from bench.effect.corpus import (
    BUILT_CORPORA,
    Task,
    check_task,
    is_fixed,
    load_corpus,
    make_workspace,
)
from bench.effect.preamble import Preamble, measure
from bench.effect.proxy import CountingProxy, Exchange
from bench.effect.real_bugs import build as build_real_bugs
from bench.effect.release_bugs import build as build_release_bugs
from bench.peers import ensure_aider
from tests.live.llama import LlamaOptions, LlamaServer, find_coder

#: The sampling every arm gets from the server when its request names none (Aider sends its
#: own temperature 0; rune today sends none): fixed, so a re-run mostly repeats.
SEED = 1
TEMPERATURE = 0.2


@dataclass(frozen=True)
class Attempt:
    """One arm on one task."""

    arm: str
    task: str
    kind: str
    fixed: bool
    outcome: str
    detail: str
    seconds: float
    requests: int
    unfinished_requests: int  # cut by the agent's timeout or the run's: tokens not counted
    prompt_tokens: int
    processed_tokens: int
    cached_tokens: int
    completion_tokens: int
    longest_request_s: float
    first_prompt_tokens: int  # the run's first request: system prompt, tools and the task
    round: int = 1  # which of the bench's `repeat` rounds


@dataclass(frozen=True)
class ArmSummary:
    arm: str
    tasks: int
    fixed: int
    requests: int
    unfinished_requests: int  # cut by the agent's timeout or the run's: tokens not counted
    prompt_tokens: int
    processed_tokens: int
    cached_tokens: int
    completion_tokens: int
    prompt_tokens_per_fixed: float | None
    prompt_tokens_per_request: float | None
    first_prompt_median: float | None  # tokens of a run's first request, median over tasks
    wall_median_s: float
    wall_max_s: float
    longest_request_s: float
    outcomes: dict[str, int]
    fixed_per_round: tuple[int, ...] = ()  # with more than one round: each round's fixed count


@dataclass(frozen=True)
class EffectReport:
    model: str
    started_at: str
    elapsed_s: float
    arms: tuple[str, ...]
    tasks: tuple[str, ...]
    unsound: tuple[str, ...]
    summaries: tuple[ArmSummary, ...]
    attempts: tuple[Attempt, ...]
    preamble: Preamble | None = None  # rune's first request, counted by the server
    rounds: int = 1

    def fixed_by_task(self, arm: str) -> dict[str, int]:
        """In how many rounds `arm` fixed each task, in the tasks' order."""
        counts = dict.fromkeys(self.tasks, 0)
        for done in self.attempts:
            if done.arm == arm and done.fixed:
                counts[done.task] += 1
        return counts

    def as_json(self) -> dict[str, Any]:
        preamble = self.preamble.as_json() if self.preamble else None
        return {**asdict(self), "preamble": preamble}


def choose_tasks(
    count: int | None, names: Sequence[str] = (), corpus: str = "own", built: Path | None = None
) -> list[Task]:
    """`names` (task directory names or their suffixes) or the first `count` tasks spread
    over the corpus (every k-th, so a subset still mixes kinds of bugs); `built`: where the
    `real` corpus was built."""
    tasks = list(load_corpus(corpus, built))
    if names:
        return [t for t in tasks if t.name in names or t.name.split("_", 1)[1] in names]
    if count is None or count >= len(tasks):
        return tasks
    step = len(tasks) / count
    return [tasks[int(i * step)] for i in range(count)]


def attempt(
    arm: str,
    task: Task,
    endpoint: Endpoint,
    proxy: CountingProxy,
    aider: Path,
    keep: Path | None = None,
    round_: int = 1,
) -> Attempt:
    """One arm on one task in a scratch folder; with `keep`, its agent log and rune's state
    directory (receipts, transcripts) are copied to `keep/arm/task` (`keep/round-K/arm/task`
    from the second round on) before it is removed."""
    with tempfile.TemporaryDirectory(prefix=f"rune-effect-{arm}-") as scratch:
        root = Path(scratch)
        workspace = make_workspace(task, root / "ws")
        invoked = arm_commands.invocation(arm, task, endpoint, root, aider)
        proxy.take()
        finished = arm_commands.run(invoked, workspace, root / "agent.log")
        exchanges = proxy.take()
        fixed = is_fixed(task, workspace)
        if not fixed and finished.outcome != "timeout":
            log_tail = (root / "agent.log").read_text(errors="replace")[-300:]
            detail = f"{finished.detail} | {log_tail!r}" if finished.detail else repr(log_tail)
        else:
            detail = finished.detail
        if keep is not None:
            into = keep if round_ == 1 else keep / f"round-{round_}"
            _keep(root, into / arm / task.name)
    return Attempt(
        arm=arm,
        task=task.name,
        kind=task.kind,
        fixed=fixed,
        outcome=finished.outcome,
        detail=detail,
        seconds=round(finished.seconds, 1),
        requests=len(exchanges),
        unfinished_requests=sum(not e.finished for e in exchanges),
        prompt_tokens=sum(e.prompt_tokens for e in exchanges),
        processed_tokens=sum(e.processed_tokens for e in exchanges),
        cached_tokens=sum(e.cached_tokens for e in exchanges),
        completion_tokens=sum(e.completion_tokens for e in exchanges),
        longest_request_s=round(max((e.seconds for e in exchanges), default=0.0), 1),
        first_prompt_tokens=exchanges[0].prompt_tokens if exchanges else 0,
        round=round_,
    )


def _keep(scratch: Path, into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    shutil.copy2(scratch / "agent.log", into / "agent.log")
    if (scratch / "state").is_dir():
        shutil.copytree(scratch / "state", into / "state", dirs_exist_ok=True)


def summarize(arm: str, attempts: Sequence[Attempt]) -> ArmSummary:
    mine = [a for a in attempts if a.arm == arm]
    fixed = sum(a.fixed for a in mine)
    prompt = sum(a.prompt_tokens for a in mine)
    walls = [a.seconds for a in mine] or [0.0]
    requests = sum(a.requests - a.unfinished_requests for a in mine)
    firsts = [a.first_prompt_tokens for a in mine if a.first_prompt_tokens]
    rounds = sorted({a.round for a in mine})
    per_round = tuple(sum(a.fixed for a in mine if a.round == r) for r in rounds)
    return ArmSummary(
        arm=arm,
        tasks=len(mine),
        fixed=fixed,
        requests=sum(a.requests for a in mine),
        unfinished_requests=sum(a.unfinished_requests for a in mine),
        prompt_tokens=prompt,
        processed_tokens=sum(a.processed_tokens for a in mine),
        cached_tokens=sum(a.cached_tokens for a in mine),
        completion_tokens=sum(a.completion_tokens for a in mine),
        prompt_tokens_per_fixed=round(prompt / fixed, 1) if fixed else None,
        prompt_tokens_per_request=round(prompt / requests, 1) if requests else None,
        first_prompt_median=statistics.median(firsts) if firsts else None,
        wall_median_s=round(statistics.median(walls), 1),
        wall_max_s=round(max(walls), 1),
        longest_request_s=max((a.longest_request_s for a in mine), default=0.0),
        outcomes=dict(Counter(_verdict(a) for a in mine)),
        fixed_per_round=per_round if len(rounds) > 1 else (),
    )


def _verdict(done: Attempt) -> str:
    return f"{'fixed' if done.fixed else 'not fixed'} ({done.outcome})"


def run(
    model: str,
    count: int | None,
    arms: Sequence[str],
    names: Sequence[str] = (),
    *,
    threads: int | None = None,
    corpus: str = "own",
    real_bugs: Path | None = None,
    keep: Path | None = None,
    repeat: int = 1,
) -> EffectReport:
    """`threads`: llama-server's `-t` (default: the live tier's, `CODER_THREADS`); `corpus`:
    `own`, `multi`, `real`, `release` or `release_multi` (bench/effect/corpus.py);
    `real_bugs`: the ConDefects checkout the `real` corpus is built from; `keep`: where each
    attempt's log and state are kept (`attempt`); `repeat`: rounds (the module's docstring).
    A built corpus goes into a temporary directory removed afterwards."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, not {repeat}")
    if corpus not in BUILT_CORPORA:
        return _run(model, count, arms, names, threads, corpus, None, keep, repeat)
    if corpus == "real" and real_bugs is None:
        raise ValueError("--corpus real needs --real-bugs-dir (a ConDefects checkout)")
    built = Path(tempfile.mkdtemp(prefix=f"rune-{corpus}-bugs-"))
    try:
        if real_bugs is not None and corpus == "real":
            made = build_real_bugs(real_bugs, built)
            source = str(real_bugs)
        else:
            made = build_release_bugs(built, corpus)
            source = "PyPI sdists (bench/effect/release_bugs.json)"
        print(f"{corpus} corpus: {len(made.tasks)} tasks from {source}", file=sys.stderr)
        for recipe, reason in made.skipped.items():
            print(f"{corpus} corpus: no task {recipe}: {reason}", file=sys.stderr)
        return _run(model, count, arms, names, threads, corpus, built, keep, repeat)
    finally:
        shutil.rmtree(built, ignore_errors=True)


def _run(
    model: str,
    count: int | None,
    arms: Sequence[str],
    names: Sequence[str],
    threads: int | None,
    corpus: str,
    built: Path | None,
    keep: Path | None,
    repeat: int,
) -> EffectReport:
    started = time.perf_counter()
    started_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    tasks = choose_tasks(count, names, corpus, built)
    checks = [check_task(task) for task in tasks]
    unsound = tuple(c.task for c in checks if not c.sound)
    tasks = [t for t, c in zip(tasks, checks, strict=True) if c.sound]
    aider = ensure_aider() if any(a.startswith("aider") for a in arms) else Path("aider")
    install = find_coder(model)
    if threads is not None:
        install = replace(install, threads=threads)
    logs = Path(tempfile.mkdtemp(prefix="rune-effect-"))
    attempts: list[Attempt] = []
    preamble: Preamble | None = None
    for round_ in range(1, repeat + 1):
        options = LlamaOptions(
            tools_template=False, max_predict=-1, seed=SEED + round_ - 1, temperature=TEMPERATURE
        )
        log = logs / f"llama-server-{round_}.log"
        with (
            LlamaServer(install, log=log, options=options) as server,
            CountingProxy(f"http://127.0.0.1:{server.port}") as proxy,
        ):
            endpoint = Endpoint(proxy.base_url, install.alias)
            if preamble is None:
                preamble = _preamble(server.base_url)
            for task in tasks:
                for arm in arms:
                    done = attempt(arm, task, endpoint, proxy, aider, keep, round_)
                    attempts.append(done)
                    print(_line(done, repeat), file=sys.stderr, flush=True)
    return EffectReport(
        model=model,
        started_at=started_at,
        elapsed_s=round(time.perf_counter() - started, 1),
        arms=tuple(arms),
        tasks=tuple(t.name for t in tasks),
        unsound=unsound,
        summaries=tuple(summarize(arm, attempts) for arm in arms),
        attempts=tuple(attempts),
        preamble=preamble,
        rounds=repeat,
    )


def _preamble(base_url: str) -> Preamble | None:
    try:
        return measure(base_url)
    except httpx.HTTPError as exc:  # an older server without /apply-template: no count
        print(f"[effect] preamble not counted: {exc}", file=sys.stderr)
        return None


def _line(done: Attempt, rounds: int) -> str:
    verdict = "FIXED" if done.fixed else "not fixed"
    which = f" round {done.round}/{rounds}" if rounds > 1 else ""
    return (
        f"[effect]{which} {done.task} {done.arm}: {verdict} ({done.outcome}) {done.seconds:.0f} s, "
        f"{done.requests} requests, {done.prompt_tokens} prompt ({done.cached_tokens} cached), "
        f"{done.completion_tokens} completion"
    )


def validate_arms(chosen: Sequence[str]) -> list[str]:
    known = ARMS + EXTRA_ARMS
    unknown = [a for a in chosen if a not in known]
    if unknown:
        raise ValueError(f"unknown arms {', '.join(unknown)}; choose from {', '.join(known)}")
    return list(chosen)


__all__ = ["ARMS", "EffectReport", "Exchange", "run", "validate_arms"]
