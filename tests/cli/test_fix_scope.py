"""What `rune-lsp fix` may touch (issue 14, items 1 and 9, from a terminal): the same scope and
read rules as the server. The HOME is a fake one under tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import RunCli
from tests.doubles.model_double import ModelDouble, Reply
from tests.e2e.scenario import calls, told


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = (tmp_path / "home").resolve()
    (root / ".ssh").mkdir(parents=True)
    (root / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY----- CLI-SECRET\n")
    (root / ".aws").mkdir()
    (root / ".aws" / "credentials").write_text("aws_secret_access_key = CLI-AWS-SECRET\n")
    (root / "notes.md").write_text("# notes\n")
    monkeypatch.setenv("HOME", str(root))
    return root


def test_fix_on_a_secret_is_refused_before_the_model_is_asked(
    rune: RunCli, double: ModelDouble, home: Path
) -> None:
    finished = rune("fix", str(home / ".ssh" / "id_rsa"), "--no", "--json")

    result = json.loads(finished.stdout)
    assert finished.returncode == 1
    assert result["outcome"] == "failed" and result["iterationsUsed"] == 0
    assert ".ssh, which is never readable by tools" in result["error"]
    assert double.chat_requests == []
    assert "CLI-SECRET" not in finished.stdout + finished.stderr


def test_a_file_in_home_without_a_project_is_single_file_mode(
    rune: RunCli, double: ModelDouble, home: Path
) -> None:
    (home / ".git").mkdir()  # a dotfiles repository does not open the whole home directory
    double.script(
        calls(("read_file", {"path": "~/.aws/credentials"}), ("read_file", {"path": "notes.md"})),
        Reply(text="done"),
    )

    finished = rune("fix", str(home / "notes.md"), "--no", "--json")

    result = json.loads(finished.stdout)
    assert result["toolCalls"] == [
        {"name": "read_file", "status": "denied"},
        {"name": "read_file", "status": "ok"},
    ]
    told_model = told(double)
    assert "CLI-AWS-SECRET" not in told_model and "Single-file mode: only" in told_model
