"""A model double on 127.0.0.1, a temp workspace with `.git`, and the CLI run against both.

`cli(...)` runs `python -m rune_lsp` as a subprocess (the real entry point, real stdin);
`rune(...)` runs the same command in this process, which is much faster, for everything that
does not depend on the process boundary.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rune_lsp.__main__ import build_parser
from rune_lsp.cli.app import run_command
from tests.cli.cli_process import Finished, run_cli
from tests.doubles.model_double import ModelDouble

SOURCE = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a + b\n"

RunCli = Callable[..., Finished]


@pytest.fixture
def double() -> Iterator[ModelDouble]:
    with ModelDouble() as running:
        yield running


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = (tmp_path / "ws").resolve()
    (root / ".git").mkdir(parents=True)
    (root / "app.py").write_text(SOURCE, encoding="utf-8")
    return root


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def cli_env(double: ModelDouble, state_dir: Path) -> dict[str, str]:
    return {
        "RUNE_PROVIDER": "ollama",
        "RUNE_BASE_URL": double.ollama_url,
        "RUNE_MODEL": "qwen3:14b",
        "RUNE_STATE_DIR": str(state_dir),
    }


@pytest.fixture
def cli(workspace: Path, cli_env: dict[str, str]) -> RunCli:
    """`cli("fix", "app.py", "--yes", stdin="", env={...extra})`: a subprocess in the workspace."""

    def run(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> Finished:
        return run_cli(args, cwd=workspace, env=cli_env | (env or {}), stdin=stdin)

    return run


@pytest.fixture
def rune(
    workspace: Path,
    cli_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> RunCli:
    """`rune("fix", "app.py", "--no", env={...})`: the same command, in this process."""
    monkeypatch.chdir(workspace)
    for key in list(os.environ):
        if key.startswith("RUNE_") or key == "NO_COLOR":
            monkeypatch.delenv(key)

    def run(*args: str, env: dict[str, str] | None = None) -> Finished:
        with monkeypatch.context() as scoped:
            for key, value in (cli_env | (env or {})).items():
                scoped.setenv(key, value)
            code = run_command(build_parser().parse_args(list(args)))
        captured = capsys.readouterr()
        return Finished(code, captured.out, captured.err)

    return run
