"""Record what a real model answers rune-lsp's code-first "Fix this", as reader cases to judge.

    .venv/bin/python -m bench.effect.record_answers check
    .venv/bin/python -m bench.effect.record_answers record --model qwen-1.5b --out /tmp/rec
    .venv/bin/python -m bench.effect.record_answers record --model qwen-0.5b --out /tmp/rec \\
        --programs inventory,grades --framings blind

`check` runs each program's own test twice: it must fail on the program as written and pass
once `bug.json`'s one change is made (a program that does not is reported and never recorded).

`record` starts one llama-server (`tests/live/llama.py`, the bench's settings: the fetched
Qwen2.5-Coder GGUF, `-c 8192`, `-t 2`, one slot, seed and temperature from
`bench/effect/bench.py`, `-n -1`, the model's own chat template) behind a recording proxy, and
for each program under `bench/effect/recording/` and each framing runs, in a fresh copy of the
program and its test with a fresh state directory:

    rune-lsp fix MODULE -m "There is a bug in this program. Fix it." --no --json
        --provider openai --base-url PROXY/v1 --model NAME --max-iterations 2
        [--check-command "PYTHON -m pytest -q -p no:cacheprovider -p no:asyncio TEST"]

`blind` is the bench's `rune_blind` arm and `check` its `rune_check` arm, except that `--no`
rejects every edit (nothing is changed, so what the model answered is all that is kept) and
`--max-iterations 2` (the default; `record --max-iterations N` changes it) ends the run after
the turn that follows the first rejection (the first turn's request does not depend on it).
The proxy keeps each `/chat/completions` request and the answer's text as streamed (the
`delta.content` pieces joined, byte for byte).

Each run becomes `OUT/rec-<model>-<program>-<framing>/turn<N>/` per model turn: `answer.md`
(the answer's text, verbatim), `request.json` (what rune sent), `tool_calls.json` (native calls
in the answer, if any) and `source.txt` (the line a case's `source` holds). `OUT` is never
the cases folder: re-recording does not overwrite a judgement.

A case is made from one turn by a person who has read the answer (`tests/answers/cases.py`
defines the folder):

    .venv/bin/python -m bench.effect.record_answers case OUT/rec-1.5b-grades-blind/turn1 \\
        --expect placed --why "the fixed method replaces `top`" --after /tmp/grades.py

writes `tests/answers/cases/rec-1.5b-grades-blind[-turnN]/`: the answer verbatim, the program
as `before/`, `case.json`, and for `placed` the module as that person placed the answer by
hand (`--after`: the intended change exactly, every other line as before).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx

from bench.effect.arms import BLIND, RUN_TIMEOUT, RUNE
from bench.effect.bench import SEED, TEMPERATURE
from bench.effect.proxy import _HOP_HEADERS, UPSTREAM_TIMEOUT, CountingProxy, _exchange
from tests.live.llama import LlamaOptions, LlamaServer, LlamaUnavailable, find_coder

PROGRAMS = Path(__file__).resolve().parent / "recording"
FRAMINGS = ("blind", "check")
#: The turn after the first rejection is the last one recorded (see the module's docstring).
MAX_ITERATIONS = 2
TEST_TIMEOUT = 60.0
#: Seconds rune waits for one turn. Rune's default (120 s) is too short for the 1.5B's first
#: turn on a 2-core machine that others share: the turn was lost and nothing recorded. How long
#: rune waits does not change what the model answers.
REQUEST_TIMEOUT = 600.0
#: Headers the proxy does not pass on: the hop-by-hop ones it rewrites (the counting proxy's).
_DROPPED_HEADERS = _HOP_HEADERS | {"host"}


@dataclass(frozen=True)
class Program:
    """`bench/effect/recording/<name>/`: one module, its test, and the bug as one change."""

    name: str
    directory: Path
    module: str
    test: str
    buggy: str  # text that occurs exactly once in the module
    fixed: str  # what it becomes in the fixed module

    def source(self) -> str:
        return (self.directory / self.module).read_text(encoding="utf-8")

    def test_command(self) -> str:
        return f"{sys.executable} -m pytest -q -p no:cacheprovider -p no:asyncio {self.test}"


def load_programs(root: Path = PROGRAMS) -> tuple[Program, ...]:
    programs = []
    for directory in sorted(p for p in root.iterdir() if (p / "bug.json").is_file()):
        tests = sorted(p.name for p in directory.glob("test_*.py"))
        modules = sorted(p.name for p in directory.glob("*.py") if not p.name.startswith("test_"))
        if len(tests) != 1 or len(modules) != 1:
            raise ValueError(f"{directory}: expected one module and one test_*.py")
        bug = json.loads((directory / "bug.json").read_text(encoding="utf-8"))
        programs.append(
            Program(directory.name, directory, modules[0], tests[0], bug["buggy"], bug["fixed"])
        )
    return tuple(programs)


def workspace(program: Program, destination: Path, module_text: str | None = None) -> Path:
    """The module (as written, or `module_text`) and its test, as a user has them."""
    destination.mkdir(parents=True, exist_ok=True)
    text = program.source() if module_text is None else module_text
    (destination / program.module).write_text(text, encoding="utf-8")
    shutil.copyfile(program.directory / program.test, destination / program.test)
    return destination


def passes(program: Program, module_text: str) -> bool:
    with tempfile.TemporaryDirectory(prefix="rune-rec-test-") as scratch:
        root = workspace(program, Path(scratch), module_text)
        try:
            done = subprocess.run(
                program.test_command().split(),
                cwd=root,
                capture_output=True,
                timeout=TEST_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return False
    return done.returncode == 0


def soundness(program: Program) -> str | None:
    """Why the program is unfit to record, or None: its test fails before and passes after."""
    source = program.source()
    if source.count(program.buggy) != 1:
        raise ValueError(f"{program.name}: bug.json's `buggy` must occur exactly once")
    if passes(program, source):
        return "its test passes on the program as written"
    if not passes(program, source.replace(program.buggy, program.fixed)):
        return "its test still fails with bug.json's fix"
    return None


@dataclass
class Turn:
    """One `/chat/completions` exchange as it went through the proxy."""

    request: dict[str, Any]
    content: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None


def read_answer(body: bytes, turn: Turn) -> None:
    """Fill `turn` from an SSE stream or a whole JSON answer: text joined as sent."""
    text = body.decode("utf-8")
    # SSE lines end in "\n" (or "\r\n"); `splitlines` would also cut at a raw U+2028 that a
    # server writes unescaped inside a JSON string, and lose that chunk.
    events = [line[5:].strip() for line in text.split("\n") if line.startswith("data:")]
    if not events:
        events = [text]
    for event in events:
        if event == "[DONE]":
            continue
        try:
            chunk = json.loads(event)
        except ValueError:
            continue
        for choice in chunk.get("choices") or []:
            part = choice.get("delta") or choice.get("message") or {}
            turn.content += part.get("content") or ""
            turn.tool_calls.extend(part.get("tool_calls") or [])
            turn.finish_reason = choice.get("finish_reason") or turn.finish_reason


class RecordingProxy(CountingProxy):
    """The bench's counting proxy (`take()`: the server's timings per request) that also keeps
    every chat exchange's request and text (`take_turns()`). It answers only once the server
    has finished: a recording needs the whole body, and rune reads a stream that arrives at
    once just the same."""

    def __init__(self, upstream: str) -> None:
        self.turns: list[Turn] = []
        super().__init__(upstream)

    def take_turns(self) -> list[Turn]:
        with self._lock:
            taken, self.turns = self.turns, []
        return taken

    def _keep(self, turn: Turn) -> None:
        with self._lock:
            self.turns.append(turn)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._forward(None)

            def do_POST(self) -> None:
                self._forward(self.rfile.read(int(self.headers.get("content-length") or 0)))

            def _forward(self, body: bytes | None) -> None:
                started = time.perf_counter()
                headers = {
                    k: v for k, v in self.headers.items() if k.lower() not in _DROPPED_HEADERS
                }
                try:
                    answer = httpx.request(
                        self.command,
                        proxy.upstream + self.path,
                        content=body,
                        headers=headers,
                        timeout=UPSTREAM_TIMEOUT,
                    )
                except httpx.HTTPError as error:
                    self.send_error(502, str(error))
                    return
                if self.path.endswith("/chat/completions") and body is not None:
                    turn = Turn(json.loads(body))
                    read_answer(answer.content, turn)
                    proxy._keep(turn)
                    proxy._record(_exchange(self.path, answer.status_code, started, answer.content))
                try:
                    self.send_response(answer.status_code)
                    for key, value in answer.headers.items():
                        # httpx has decoded the body: its length and encoding are new.
                        if key.lower() not in _DROPPED_HEADERS | {"content-encoding"}:
                            self.send_header(key, value)
                    self.send_header("content-length", str(len(answer.content)))
                    self.send_header("connection", "close")
                    self.end_headers()
                    self.wfile.write(answer.content)
                except OSError:
                    pass  # rune hung up (its own request timeout): the turn is still kept

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


def rune_argv(
    program: Program,
    framing: str,
    base_url: str,
    model: str,
    state: Path,
    turns: int,
    request_timeout: float = REQUEST_TIMEOUT,
) -> list[str]:
    argv = [str(RUNE), "fix", program.module, "-m", BLIND, "--no", "--json"]
    argv += ["--provider", "openai", "--base-url", base_url, "--model", model]
    argv += ["--state-dir", str(state), "--max-iterations", str(turns)]
    argv += ["--request-timeout", f"{request_timeout:g}"]
    if framing == "check":
        argv += ["--check-command", program.test_command()]
    return argv


def rune_version() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=PROGRAMS,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "unknown"


def server_version(binary: Path) -> str:
    done = subprocess.run(
        [str(binary), "--version"], capture_output=True, text=True, timeout=30, check=False
    )
    for line in (done.stdout + done.stderr).splitlines():
        if line.startswith("version:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def quantization(log: Path) -> str:
    """The GGUF's file type as llama-server printed it on loading (e.g. `Q8_0`)."""
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if "file type" in line and "=" in line:
            return line.split("=", 1)[1].strip()
    return "(quantization not logged)"


def record_run(
    program: Program,
    framing: str,
    proxy: RecordingProxy,
    model: str,
    out: Path,
    source: str,
    turns: int = MAX_ITERATIONS,
) -> tuple[list[Turn], float]:
    """One rune run; each of its model turns written under `out`. Returns the turns and the
    seconds the server spent answering them."""
    with tempfile.TemporaryDirectory(prefix="rune-rec-") as scratch:
        root = Path(scratch)
        ws = workspace(program, root / "ws")
        argv = rune_argv(program, framing, proxy.base_url, model, root / "state", turns)
        proxy.take_turns()
        proxy.take()
        try:
            done = subprocess.run(
                argv,
                cwd=ws,
                capture_output=True,
                text=True,
                timeout=max(RUN_TIMEOUT, REQUEST_TIMEOUT * turns + 60),
                check=False,
            )
            result = done.stdout
        except subprocess.TimeoutExpired:
            result = '{"outcome": "timeout"}'
        if ws.joinpath(program.module).read_text(encoding="utf-8") != program.source():
            raise RuntimeError(f"{program.name}: --no run changed the module")
    taken = proxy.take_turns()
    seconds = sum(e.seconds for e in proxy.take())
    for number, turn in enumerate(taken, start=1):
        folder = out / f"turn{number}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "answer.md").write_text(turn.content, encoding="utf-8", newline="")
        (folder / "request.json").write_text(json.dumps(turn.request, indent=1) + "\n")
        (folder / "tool_calls.json").write_text(json.dumps(turn.tool_calls, indent=1) + "\n")
        (folder / "source.txt").write_text(
            f"{source}, {framing}, turn {number}\n", encoding="utf-8"
        )
        (folder / "finish_reason.txt").write_text(f"{turn.finish_reason}\n")
    out.mkdir(parents=True, exist_ok=True)  # a run whose every turn was lost still says why
    (out / "result.json").write_text(result, encoding="utf-8")
    return taken, seconds


def record(
    model: str,
    programs: Sequence[Program],
    framings: Sequence[str],
    out: Path,
    turns: int = MAX_ITERATIONS,
) -> None:
    install = find_coder(model)
    unsound = [(p.name, why) for p in programs if (why := soundness(p)) is not None]
    if unsound:
        raise SystemExit(f"unsound programs, not recorded: {unsound}")
    # The bench's own server settings (bench/effect/bench.py, `run`).
    options = LlamaOptions(tools_template=False, max_predict=-1, seed=SEED, temperature=TEMPERATURE)
    log = out / f"llama-server-{model}.log"
    out.mkdir(parents=True, exist_ok=True)
    with (
        LlamaServer(install, log=log, options=options) as server,
        RecordingProxy(f"http://127.0.0.1:{server.port}") as proxy,
    ):
        source = (
            f"{_model_title(model)} {quantization(log)}, llama-server "
            f"{server_version(install.binary)}, temperature {TEMPERATURE}, seed {SEED}, "
            f"rune-lsp {rune_version()} code-first task"
        )
        spent = 0.0
        for program in programs:
            for framing in framings:
                name = f"rec-{model.removeprefix('qwen-')}-{program.name}-{framing}"
                taken, seconds = record_run(
                    program, framing, proxy, install.alias, out / name, source, turns
                )
                sizes = ", ".join(str(len(t.content)) for t in taken)
                spent += seconds
                print(
                    f"[record] {name}: {len(taken)} turns ({sizes} chars) in {seconds:.0f} s;"
                    f" model time so far {spent / 60:.1f} min",
                    flush=True,
                )


def _model_title(model: str) -> str:
    return {"qwen-0.5b": "Qwen2.5-Coder-0.5B-Instruct", "qwen-1.5b": "Qwen2.5-Coder-1.5B-Instruct"}[
        model
    ]


CASES = Path(__file__).resolve().parents[2] / "tests" / "answers" / "cases"


def make_case(turn: Path, expect: str, why: str, after: Path | None, cases: Path = CASES) -> Path:
    """`cases/<run>[-turnN]/` from a recorded turn and a person's reading of it: the answer
    verbatim, the program as `before/`, and for `placed` the file that person made."""
    run = turn.parent
    named = [
        p for p in load_programs() if any(run.name.endswith(f"-{p.name}-{f}") for f in FRAMINGS)
    ]
    if len(named) != 1:
        raise SystemExit(f"{run.name}: not a recording `rec-<model>-<program>-<framing>`")
    program = named[0]
    number = int(turn.name.removeprefix("turn"))
    folder = cases / (run.name if number == 1 else f"{run.name}-turn{number}")
    if (expect == "placed") != (after is not None):
        raise SystemExit("--after FILE is for `placed`, and only for it")
    folder.mkdir(parents=True, exist_ok=False)
    shutil.copyfile(turn / "answer.md", folder / "answer.md")
    (folder / "before").mkdir()
    shutil.copyfile(program.directory / program.module, folder / "before" / program.module)
    if after is not None:
        (folder / "after").mkdir()
        shutil.copyfile(after, folder / "after" / program.module)
    spec = {
        "target": program.module,
        "source": (turn / "source.txt").read_text(encoding="utf-8").strip(),
        "expect": expect,
        "why": why,
    }
    (folder / "case.json").write_text(json.dumps(spec, indent=2) + "\n", encoding="utf-8")
    return folder


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("check", help="each program's test fails as written, passes when fixed")
    rec = sub.add_parser("record", help="record rune runs against a real model")
    rec.add_argument("--model", choices=("qwen-0.5b", "qwen-1.5b"), required=True)
    rec.add_argument("--out", type=Path, required=True)
    rec.add_argument("--programs", default="", help="comma-separated names (default: all)")
    rec.add_argument("--framings", default=",".join(FRAMINGS))
    rec.add_argument(
        "--max-iterations", type=int, default=MAX_ITERATIONS, help="rune's turns per run"
    )
    case = sub.add_parser("case", help="make a case folder from one recorded turn")
    case.add_argument("turn", type=Path, help="OUT/rec-<model>-<program>-<framing>/turn<N>")
    case.add_argument(
        "--expect", required=True, choices=("placed", "refused", "unchanged", "nothing")
    )
    case.add_argument("--why", required=True)
    case.add_argument("--after", type=Path, help="for `placed`: the module as placed by hand")
    args = parser.parse_args(argv)
    if args.command == "case":
        print(make_case(args.turn, args.expect, args.why, args.after))
        return 0
    programs = load_programs()
    if args.command == "check":
        unsound = 0
        for program in programs:
            why = soundness(program)
            unsound += why is not None
            print(f"{program.name}: {why or 'sound'}", flush=True)
        print(f"{len(programs) - unsound}/{len(programs)} programs sound")
        return 1 if unsound else 0
    chosen = set(filter(None, args.programs.split(",")))
    framings = [f for f in args.framings.split(",") if f]
    if bad := [f for f in framings if f not in FRAMINGS]:
        parser.error(f"unknown framings {bad}; choose from {FRAMINGS}")
    chosen_programs = [p for p in programs if not chosen or p.name in chosen]
    try:
        record(args.model, chosen_programs, framings, args.out, args.max_iterations)
    except LlamaUnavailable as missing:  # the message names the command that provides it
        print(f"record: {missing}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
