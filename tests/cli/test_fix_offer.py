"""`rune-lsp fix` on a test without `--check-command`, in a workspace with a test runner:
the test file is offered as the run's check, asked like a command (`--yes` runs it, `--no`
denies it); issue 26, point 6."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import RunCli
from tests.doubles.model_double import ModelDouble, Reply
from tests.doubles.venv_python import venv_python

TEST = "from pkg.x import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
OFFERED = ".venv/bin/python -m pytest -q tests/test_x.py"


@pytest.fixture
def package(workspace: Path) -> Path:
    (workspace / "pkg").mkdir()
    (workspace / "tests").mkdir()
    (workspace / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (workspace / "pkg" / "x.py").write_text("def add(a, b):\n    return a - b\n", "utf-8")
    (workspace / "tests" / "test_x.py").write_text(TEST, encoding="utf-8")
    venv_python(workspace)
    return workspace


def _first_request(double: ModelDouble) -> str:
    content = double.chat_requests[0].body["messages"][-1]["content"]
    assert isinstance(content, str)
    return content


def test_yes_runs_the_offered_check(rune: RunCli, double: ModelDouble, package: Path) -> None:
    double.script(Reply(text="I cannot tell."))
    finished = rune("fix", "tests/test_x.py", "--yes")

    assert "rune offers a check for this run (tests/test_x.py is a test file; " in finished.stderr
    assert f"$ {OFFERED}" in finished.stderr
    assert "Run this command? [y/n/q] y (--yes)" in finished.stderr
    # It ran and failed: the run moved to the module the test points to.
    assert "the failing test points to pkg/x.py: the fix goes there" in finished.stderr
    task = _first_request(double)
    assert task.startswith("Task: The test tests/test_x.py fails. Fix the bug.\nFile: pkg/x.py\n")


def test_no_denies_it_and_the_run_goes_on_without(
    rune: RunCli, double: ModelDouble, package: Path
) -> None:
    double.script(Reply(text="I cannot tell."))
    finished = rune("fix", "tests/test_x.py", "--no")

    assert "Run this command? [y/n/q] n (--no)" in finished.stderr
    assert "The check" not in _first_request(double)
    assert finished.returncode == 0


def test_offer_check_false_asks_nothing(rune: RunCli, double: ModelDouble, package: Path) -> None:
    double.script(Reply(text="I cannot tell."))
    finished = rune("fix", "tests/test_x.py", "--yes", "--offer-check", "false")

    assert "rune offers" not in finished.stderr
    assert "The check" not in _first_request(double)
