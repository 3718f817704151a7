"""The performance bench of issue #10: one command, a table, and bench/results.json.

    .venv/bin/python bench/run.py            # the full run (5 to 8 minutes on 2 cores)
    .venv/bin/python bench/run.py --quick    # a smoke run with fewer repeats (about a minute)
    .venv/bin/python bench/run.py --only loop,edits
    .venv/bin/python bench/run.py --only scratch      # the candidates' scratch copy (7)
    .venv/bin/python bench/run.py --only effect [--tasks N] [--arms A,B] [--model qwen-1.5b]

The peer servers (jedi-language-server, pylsp) are installed into bench/.venv-peers on the
first run. Nothing here asserts: targets are reported as met / NOT met. `effect` (does the
agent fix the bug, side by side with Aider, on a real model; bench/effect/) is long and runs
only when asked for, alone.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import (
    context,
    edits,
    importtime,
    loop_overhead,
    memory,
    reading,
    responsiveness,
    review_open,
    scratch,
    startup,
)
from bench.peers import Peer, ensure_peers
from bench.results import Section, machine, table, write_json

RESULTS = Path(__file__).resolve().parent / "results.json"


@dataclass(frozen=True)
class Plan:
    """How many repetitions each section gets."""

    startup_rounds: int
    import_repeats: int
    loop_runs: int
    memory_runs: int
    code_action_rounds: int
    code_actions: int  # per phase of a round
    scratch_rounds: int


FULL = Plan(
    startup_rounds=20,
    import_repeats=5,
    loop_runs=60,
    memory_runs=1_000,
    code_action_rounds=5,
    code_actions=1_000,
    scratch_rounds=5,
)
QUICK = Plan(
    startup_rounds=3,
    import_repeats=1,
    loop_runs=5,
    memory_runs=120,
    code_action_rounds=2,
    code_actions=40,
    scratch_rounds=2,
)
SECTIONS = (
    "startup",
    "imports",
    "loop",
    "memory",
    "context",
    "edits",
    "responsiveness",
    "review",
    "reading",
    "scratch",
)
PERFORMANCE_DOC = Path(__file__).resolve().parent.parent / "docs" / "performance.md"


def load_average() -> str:
    try:
        return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()
    except OSError:
        return "unknown"


def guarded(name: str, body: Callable[[], Section]) -> Section:
    """A failing section is reported with its error; the others still run."""
    print(f"[bench] {name} ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    try:
        section = body()
    except Exception as exc:
        traceback.print_exc()
        section = Section(name, (), error=f"{type(exc).__name__}: {exc}")
    print(f"[bench] {name} took {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return section


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer repeats: a smoke run")
    parser.add_argument("--only", help=f"comma-separated subset of: {', '.join(SECTIONS)}")
    parser.add_argument("--output", type=Path, default=RESULTS, help="where to write the JSON")
    effect_options = parser.add_argument_group("effect (with --only effect)")
    effect_options.add_argument("--model", default="qwen-1.5b", help="qwen-0.5b or qwen-1.5b")
    effect_options.add_argument("--tasks", type=int, help="this many tasks, spread over the corpus")
    effect_options.add_argument("--task-names", help="comma-separated task names instead")
    effect_options.add_argument("--arms", help="comma-separated subset of the arms")
    effect_options.add_argument(
        "--corpus",
        choices=("own", "multi", "real", "release", "release_multi"),
        default="own",
        help="own: bench/effect/corpus; multi: bench/effect/corpus_multi (the bug in a module, "
        "the agent pointed at its failing test); real: real people's bugs, built from "
        "--real-bugs-dir; release / release_multi: bugs fixed in PyPI patch releases, built "
        "from the sdists (bench/effect/release_bugs.json), the agent pointed at the module / "
        "at the failing test",
    )
    effect_options.add_argument(
        "--real-bugs-dir",
        type=Path,
        help="a ConDefects checkout with its Test.zip unpacked (docs/performance.md)",
    )
    effect_options.add_argument(
        "--threads", type=int, help="llama-server threads (default 2; 1 leaves a core free)"
    )
    effect_options.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run every task and arm this many rounds, each on a server with its own seed, "
        "and report each round's and each task's fixed count (one run of a small corpus moves "
        "by a task or two from sampling alone)",
    )
    effect_options.add_argument(
        "--no-doc", action="store_true", help="leave docs/performance.md alone"
    )
    effect_options.add_argument(
        "--keep",
        type=Path,
        help="keep each attempt's agent log and rune's state directory (its transcripts) "
        "under KEEP/ARM/TASK, to read why a task was missed",
    )
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    chosen = SECTIONS if not args.only else tuple(s.strip() for s in args.only.split(","))
    if "effect" in chosen:
        if len(chosen) > 1:
            parser.error("effect runs alone: --only effect")
        return run_effect(args, argv)
    unknown = set(chosen) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections: {', '.join(sorted(unknown))}")

    started = time.perf_counter()
    load_before = load_average()
    sections: list[Section] = []
    findings: importtime.Findings | None = None
    if "startup" in chosen:
        peers: tuple[Peer, ...] = ()
        peer_error = None
        try:
            peers = ensure_peers()
        except (RuntimeError, OSError, TimeoutError) as exc:
            peer_error = str(exc)
        sections.append(
            guarded("1 start-up", lambda: startup.run(plan.startup_rounds, peers, peer_error))
        )
    if "imports" in chosen:
        traced: list[importtime.Findings] = []

        def imports() -> Section:
            section, found = importtime.run(plan.import_repeats)
            traced.append(found)
            return section

        sections.append(guarded("1 imports", imports))
        findings = traced[0] if traced else None
    if "loop" in chosen:
        sections.append(guarded("2 loop", lambda: loop_overhead.run(plan.loop_runs)))
    if "memory" in chosen:
        sections.append(guarded("3 memory", lambda: memory.run(plan.memory_runs)))
    if "context" in chosen:
        sections.append(guarded("4 context", context.run))
    if "edits" in chosen:
        sections.append(guarded("5 edits", lambda: edits.run(args.quick)))
    if "responsiveness" in chosen:
        sections.append(
            guarded(
                "6 responsiveness",
                lambda: responsiveness.run(plan.code_action_rounds, plan.code_actions),
            )
        )
    if "review" in chosen:
        sections.append(guarded("6b review open", lambda: review_open.run(plan.code_actions)))
    if "reading" in chosen:
        sections.append(guarded("7 reading", lambda: reading.run(args.quick)))
    if "scratch" in chosen:
        sections.append(guarded("8 scratch copy", lambda: scratch.run(plan.scratch_rounds)))
    elapsed = time.perf_counter() - started

    info = machine()
    print(
        f"rune-lsp bench ({'quick' if args.quick else 'full'}) on {info['nproc']} x "
        f"{info['cpu']}, Python {info['python']}; load average before {load_before}, after "
        f"{load_average()}; {elapsed:.0f} s"
    )
    print()
    print(table(sections))
    if findings is not None:
        print()
        print(importtime.render(findings))
    write_json(
        args.output,
        sections,
        {
            "mode": "quick" if args.quick else "full",
            "plan": plan.__dict__,
            "elapsed_s": round(elapsed, 1),
            "load_average_before": load_before,
            "load_average_after": load_average(),
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        },
    )
    print(f"\nwrote {args.output}")
    return 0


def run_effect(args: argparse.Namespace, argv: list[str] | None) -> int:
    from bench.effect import bench as effect
    from bench.effect import report
    from bench.effect.real_bugs import DatasetError
    from bench.effect.release_bugs import RecipeError

    arms = effect.ARMS if not args.arms else tuple(a.strip() for a in args.arms.split(","))
    names = tuple(n.strip() for n in args.task_names.split(",")) if args.task_names else ()
    try:
        chosen_arms = effect.validate_arms(arms)
    except ValueError as exc:
        print(f"bench/run.py: {exc}", file=sys.stderr)
        return 2
    if args.repeat < 1:
        print(f"bench/run.py: --repeat must be at least 1, not {args.repeat}", file=sys.stderr)
        return 2
    if args.corpus == "real" and args.real_bugs_dir is None:
        print("bench/run.py: --corpus real needs --real-bugs-dir", file=sys.stderr)
        return 2
    try:
        result = effect.run(
            args.model,
            args.tasks,
            chosen_arms,
            names,
            threads=args.threads,
            corpus=args.corpus,
            real_bugs=args.real_bugs_dir,
            keep=args.keep,
            repeat=args.repeat,
        )
    except (DatasetError, RecipeError) as exc:  # before any server starts: no usable data
        print(f"bench/run.py: {exc}", file=sys.stderr)
        return 2
    command = "bench/run.py " + " ".join(sys.argv[1:] if argv is None else argv)
    print(report.table(result))
    if result.preamble is not None:
        print(result.preamble.summary())
    report.write_results(args.output, result)
    print(f"\nwrote {args.output}")
    if not args.no_doc and args.corpus == "own":  # the doc's table is the own corpus's
        report.write_doc(PERFORMANCE_DOC, result, command)
        print(f"wrote {PERFORMANCE_DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
