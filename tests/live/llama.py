"""A real llama.cpp `llama-server` with a real model, for the live tier and for recording.

Two kinds of model: SmolLM2-135M (tiny, with a tool template; for the plumbing guarantees) and
a real coding model, Qwen2.5-Coder-Instruct 0.5B or 1.5B (`find_coder`; what users run). The
binary and the models come from `scripts/llama-server` (built or fetched once, then cached).
Nothing here builds or downloads: an absent binary or model is reported as the reason to skip,
naming the command that provides it (and the last fetch's error, when there was one). The
server listens on 127.0.0.1 only and is ended by its PID.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import httpx

from rune_lsp import modelfetch

ROOT = Path(__file__).resolve().parents[2]
#: prctl(2)'s option number: the signal a child gets when the thread that started it ends.
_PR_SET_PDEATHSIG = 1
SCRIPT = ROOT / "scripts" / "llama-server"
# A copy of the shared template: CI clones the repository without a writable shared/ beside it.
TOOLS_TEMPLATE = Path(__file__).with_name("chatml-jsonblock-tools.jinja")

#: The name the server answers to (`--alias`), so settings and reports can name the model.
MODEL_ALIAS = "smollm2-135m"
BINARY_ENV = "RUNE_LLAMA_SERVER"
MODEL_ENV = "RUNE_LLAMA_MODEL"
NOT_BUILT = "llama-server not built: run scripts/llama-server build"
NO_MODEL = "model not installed: run scripts/llama-server model"
#: Which coding model the live tier runs: `qwen-1.5b` (the CI default, and the `local`
#: provider's), or `qwen-0.5b`. At the fixed seed the 0.5B answers the seeds' add() task with
#: an edit that does not fix it (it puts `return a - b` on the `def` line); the 1.5B fixes it.
CODER_ENV = "RUNE_LIVE_CODER"
DEFAULT_CODER = "qwen-1.5b"
#: A coding task (file, tool schemas, a few turns) does not fit SmolLM2's 4k.
CODER_CONTEXT = 8192
#: Two threads for the coding model: one thread halves its speed, and while a turn is generated
#: the language server and the test process are idle.
CODER_THREADS = 2

#: Tokens one answer may generate. A small model that repeats a call would otherwise fill the
#: whole context (over a minute) before it stops; with this cap it ends with `length`.
MAX_PREDICT = 256
CONTEXT = 4096
READY_WITHIN = 60.0
STOP_WITHIN = 10.0


class LlamaUnavailable(Exception):
    """The binary or the model is missing; the message says how to get it."""


class LlamaStartError(Exception):
    """The server did not come up; the message holds the end of its log."""


@dataclass(frozen=True)
class LlamaInstall:
    """A binary and a model, with what serving that model needs."""

    binary: Path
    model: Path
    alias: str = MODEL_ALIAS
    context: int = CONTEXT
    threads: int = 1


def find_install() -> LlamaInstall:
    """The binary (env `RUNE_LLAMA_SERVER`, else the build cache) and the model (env
    `RUNE_LLAMA_MODEL`, else the install cache); raises LlamaUnavailable naming what to run."""
    binary = _find_binary()
    model = _configured(MODEL_ENV) or _script_path("model-path")
    if not model.is_file():
        raise LlamaUnavailable(_bad_env(MODEL_ENV, model) if MODEL_ENV in os.environ else NO_MODEL)
    return LlamaInstall(binary=binary, model=model)


def find_coder(name: str | None = None) -> LlamaInstall:
    """The binary and a fetched Qwen2.5-Coder (env `RUNE_LIVE_CODER`, default qwen-1.5b)."""
    chosen = name or os.environ.get(CODER_ENV) or DEFAULT_CODER
    spec = modelfetch.CATALOGUE.get(chosen)
    if spec is None:
        raise LlamaUnavailable(f"{CODER_ENV}={chosen}: not one of {sorted(modelfetch.CATALOGUE)}")
    binary = _find_binary()
    model = modelfetch.model_path(spec)
    if not model.is_file():
        reason = f"{chosen} not fetched: run scripts/llama-server model {chosen}"
        note = modelfetch.failure_note(spec)
        if note.is_file():
            reason += f" (the last fetch failed: {note.read_text(encoding='utf-8').strip()})"
        raise LlamaUnavailable(reason)
    return LlamaInstall(binary, model, alias=chosen, context=CODER_CONTEXT, threads=CODER_THREADS)


def _find_binary() -> Path:
    binary = _configured(BINARY_ENV) or _script_path("binary-path")
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        raise LlamaUnavailable(
            _bad_env(BINARY_ENV, binary) if BINARY_ENV in os.environ else NOT_BUILT
        )
    return binary


def _configured(variable: str) -> Path | None:
    value = os.environ.get(variable)
    return Path(value).expanduser() if value else None


def _bad_env(variable: str, path: Path) -> str:
    return f"{variable}={path}: no such file, or not executable"


def _script_path(subcommand: str) -> Path:
    # The script owns the versions and the cache layout; asking it keeps them in one place.
    done = subprocess.run(
        ["bash", str(SCRIPT), subcommand], capture_output=True, text=True, check=False, timeout=30
    )
    if done.returncode != 0 or not done.stdout.strip():
        raise LlamaUnavailable(f"scripts/llama-server {subcommand} failed: {done.stderr.strip()}")
    return Path(done.stdout.strip())


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class LlamaOptions:
    """How the server answers.

    `tools_template` loads the chat template that turns SmolLM2's JSON blocks into native
    `tool_calls`; without it the model's own template silently drops `tools`. `seed` makes
    sampling repeatable: the same request gets the same answer. `grammar` (GBNF) constrains
    every answer to requests without `tools` (the server's own tool grammar wins otherwise).
    `temperature` is the server's default, used when a request names none.
    """

    tools_template: bool = True
    max_predict: int = MAX_PREDICT
    seed: int = 1
    grammar: str | None = None
    temperature: float | None = None


class LlamaServer:
    """`with LlamaServer(install, log=path) as server:` a started server at `server.base_url`."""

    def __init__(
        self, install: LlamaInstall, *, log: Path, options: LlamaOptions | None = None
    ) -> None:
        self.install = install
        self.log = log
        self.options = options or LlamaOptions()
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible endpoint, as `baseUrl` expects it."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def command(self, port: int) -> list[str]:
        options = self.options
        command = [
            str(self.install.binary),
            *("-m", str(self.install.model)),
            *("--alias", self.install.alias),
            *("--host", "127.0.0.1", "--port", str(port)),
            *("-c", str(self.install.context), "-n", str(options.max_predict)),
            # One thread, one slot: llama.cpp's threads spin while they wait for each other, and
            # with every core also busy (the tests, the language server, other jobs) two
            # threads fell to 3 tokens/s where one keeps about 50. One slot keeps the prompt
            # cache of a run's previous turn.
            *("-t", str(self.install.threads), "--parallel", "1"),
            # Default temperature (greedy decoding never produces a tool call with this model),
            # but a fixed seed, so a re-run mostly gets the same answers.
            *("--seed", str(options.seed)),
            "--jinja",
            "--no-webui",
        ]
        if options.tools_template:
            command += ["--chat-template-file", str(TOOLS_TEMPLATE)]
        if options.grammar is not None:
            command += ["--grammar", options.grammar]
        if options.temperature is not None:
            command += ["--temp", str(options.temperature)]
        return command

    def start(self) -> None:
        # A port picked free can be taken before the server binds it; then try another.
        for attempt in range(3):
            self.port = free_port()
            self._spawn()
            try:
                self._wait_ready()
                return
            except LlamaStartError:
                self.stop()
                if attempt == 2 or "bind" not in self.log_tail().lower():
                    raise

    def _spawn(self) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as log:
            self._process = subprocess.Popen(
                self.command(self.port),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent if _prctl is not None else None,
            )

    def _wait_ready(self) -> None:
        """Until `/health` says 200 (it answers 503 while the model loads)."""
        process = self._process
        assert process is not None
        deadline = time.monotonic() + READY_WITHIN
        health = f"http://127.0.0.1:{self.port}/health"
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise LlamaStartError(
                    f"llama-server exited with {process.returncode}:\n{self.log_tail()}"
                )
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(health, timeout=2).status_code == 200:
                    return
            time.sleep(0.2)
        raise LlamaStartError(
            f"llama-server not ready within {READY_WITHIN:g} s:\n{self.log_tail()}"
        )

    def stop(self) -> None:
        """SIGTERM by PID, SIGKILL if it lingers; safe to call twice."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(STOP_WITHIN)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> LlamaServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def forced_call(
    tool: str, arguments: dict[str, str], *, tagged: bool = False, preamble: bool = False
) -> str:
    """A GBNF grammar letting the model write only this one call: as a ```json fenced block
    (what small models write by habit) or in rune's `<tool_call>` tags, after up to 60
    characters of its own words with `preamble`."""
    call = json.dumps({"name": tool, "arguments": arguments})
    block = f"<tool_call>{call}</tool_call>" if tagged else f"```json\n{call}\n```"
    # json.dumps spells a GBNF string literal: quotes and line breaks escaped.
    rule = json.dumps(block)
    if preamble:
        rule = f'[A-Za-z ,.\']{{0,60}} "\\n" {rule}'
    return f"root ::= {rule}"


#: The live tier's fixture: start one more server with these options (stopped at session end).
StartLlama = Callable[[LlamaOptions], LlamaServer]


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM it when pytest dies. A killed pytest (SIGTERM, SIGKILL)
    runs no fixture teardown, and its server kept a core and a gigabyte busy
    (prctl(2), PR_SET_PDEATHSIG; Linux only). The signal follows the *thread* that started the
    server, so servers are started from pytest's main thread (fixtures), never a worker."""
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _libc_prctl() -> Callable[..., int] | None:
    # Looked up before any fork: a dlopen between fork and exec may block on a loader lock
    # another thread held.
    if sys.platform != "linux":
        return None
    try:
        return ctypes.CDLL(None).prctl
    except (OSError, AttributeError):
        return None


_prctl = _libc_prctl()
