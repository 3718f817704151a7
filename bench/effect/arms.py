"""The ways the effect bench asks for a fix, each one command as a user would type it.

rune-lsp: `rune-lsp fix prog.py -m "There is a bug in this program. Fix it." --yes --provider
openai`, blind (`--offer-check false`: nothing runs the test), with `--check-command` (the
task's test), and `rune_offered`: blind, with the check rune offers on its own accepted by
`--yes` (a `multi` task's tests/ folder; the own corpus has no test runner configured, so
nothing is offered there). A `multi` task points every arm at its target (the failing test)
with the issue's message "The test TARGET fails. Fix the bug.". Aider 0.86.2 (its default `whole`
edit format for an unknown model, `--no-git --yes-always`): blind, with `--test-cmd ...
--auto-test`, and with the failing test's output pasted into the message. All five talk to the
same llama-server through the same counting proxy.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.effect.corpus import Task, failing_output

BLIND = "There is a bug in this program. Fix it."
#: Every arm a bench runs unless told otherwise.
ARMS = ("rune_blind", "rune_check", "aider_blind", "aider_autotest", "aider_pasted")
#: Arms run only when named (`--arms`): on the own corpus `rune_offered` is `rune_blind`.
EXTRA_ARMS = ("rune_offered",)
#: A whole run's bound (the issue's target: no run longer than 5 minutes).
RUN_TIMEOUT = 300.0
RUNE = Path(sys.executable).with_name("rune-lsp")


@dataclass(frozen=True)
class Endpoint:
    base_url: str  # the proxy's OpenAI-compatible URL, ending in /v1
    model: str  # the name llama-server answers to


@dataclass(frozen=True)
class Invocation:
    argv: tuple[str, ...]
    env: dict[str, str]


@dataclass(frozen=True)
class Finished:
    """How the agent's process ended, and what it said about its run."""

    exit_code: int | None  # None: killed at RUN_TIMEOUT
    seconds: float
    outcome: str  # rune's run outcome, or Aider's exit, or "timeout"
    detail: str = ""


def blind_message(task: Task) -> str:
    return task.instruction or BLIND


def pasted_message(task: Task) -> str:
    return f"{blind_message(task)}\n\nThe test fails:\n```\n{failing_output(task)}\n```"


def invocation(arm: str, task: Task, endpoint: Endpoint, scratch: Path, aider: Path) -> Invocation:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RUNE_", "AIDER_"))}
    if arm.startswith("rune"):
        argv = [str(RUNE), "fix", task.target, "-m", blind_message(task), "--yes"]
        argv += ["--provider", "openai", "--base-url", endpoint.base_url]
        argv += ["--model", endpoint.model, "--json", "--state-dir", str(scratch / "state")]
        if arm == "rune_check":
            argv += ["--check-command", task.test_command]
        elif arm == "rune_blind":
            argv += ["--offer-check", "false"]
        # As in a user's activated virtualenv: the offered `python -m pytest` finds pytest.
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        return Invocation(tuple(argv), env)
    # Aider's own files (caches, analytics id) go to a scratch home, not the user's.
    env.update(
        HOME=str(scratch / "home"),
        OPENAI_API_KEY="unused",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
    )
    message = pasted_message(task) if arm == "aider_pasted" else blind_message(task)
    argv = [str(aider), "--model", f"openai/{endpoint.model}"]
    argv += ["--openai-api-base", endpoint.base_url, "--no-git", "--yes-always"]
    argv += ["--no-check-update", "--no-show-model-warnings", "--analytics-disable"]
    argv += ["--no-pretty", "--no-fancy-input", "--message", message]
    if arm == "aider_autotest":
        argv += ["--test-cmd", task.test_command, "--auto-test"]
    argv.append(task.target)
    return Invocation(tuple(argv), env)


def run(invoked: Invocation, workspace: Path, log: Path) -> Finished:
    """Run the agent in `workspace`; its stdout and stderr go to `log`."""
    started = time.perf_counter()
    with log.open("wb") as sink:
        process = subprocess.Popen(
            invoked.argv,
            cwd=workspace,
            env=invoked.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=sink,
        )
        try:
            out, _ = process.communicate(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            out, _ = process.communicate()
            sink.write(out)
            return Finished(None, time.perf_counter() - started, "timeout")
        sink.write(out)
    seconds = time.perf_counter() - started
    if invoked.argv[0] == str(RUNE):
        return _rune_finished(process.returncode, seconds, out)
    return Finished(process.returncode, seconds, f"exit {process.returncode}")


def _rune_finished(code: int, seconds: float, out: bytes) -> Finished:
    try:
        result = json.loads(out)
    except ValueError:
        return Finished(code, seconds, f"exit {code}", "no JSON result")
    edits = ",".join(f"{e['tool']}:{e['status']}" for e in result.get("edits", []))
    detail = f"edits [{edits}] verified {result.get('verified')}"
    if result.get("error"):
        detail += f"; {result['error']}"
    return Finished(code, seconds, str(result.get("outcome")), detail)
