"""Fix this on a failing test whose bug is in the module it tests (issue 26, point 2): the
issue's case, `rune-lsp fix tests/test_x.py ... --check-command "python -m pytest -q
tests/test_x.py"` in a git repository, with a scripted model. Before, the first request showed
only the test and said the bug was in it; the model never saw `pkg/x.py`. Now the failing
check's evidence names the module and the run moves there."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import RunCli
from tests.doubles.model_double import ModelDouble, Reply

MODULE = "def add(a, b):\n    return a - b\n"
TEST = "from pkg.x import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
INSTRUCTION = "The test tests/test_x.py fails. Fix the bug."
PYTEST = [sys.executable, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:asyncio"]
CHECK = shlex.join([*PYTEST, "tests/test_x.py"])


@pytest.fixture
def package(workspace: Path) -> Path:
    (workspace / "pkg").mkdir()
    (workspace / "tests").mkdir()
    (workspace / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (workspace / "pkg" / "x.py").write_text(MODULE, encoding="utf-8")
    (workspace / "tests" / "test_x.py").write_text(TEST, encoding="utf-8")
    return workspace


def _first_request(double: ModelDouble) -> str:
    content = double.chat_requests[0].body["messages"][-1]["content"]
    assert isinstance(content, str)
    return content


def test_the_run_moves_to_the_module_the_failing_test_ran(
    rune: RunCli, double: ModelDouble, package: Path
) -> None:
    double.script(Reply(text="I cannot tell."))
    finished = rune(
        "fix", "tests/test_x.py", "-m", INSTRUCTION, "--check-command", CHECK, "--no", "--json"
    )

    task = _first_request(double)
    assert json.loads(finished.stdout)["outcome"] == "completed"
    assert "step 0/8 · the failing test points to pkg/x.py: the fix goes there" in finished.stderr
    assert finished.stderr.count("running the check:") == 1  # the loop reuses the first run
    # Asked as Fix this on pkg/x.py asks: the module, not the test; the check's report is kept
    # from the first request and judges the candidates.
    assert task.startswith(f"Task: {INSTRUCTION}\nFile: pkg/x.py\n```\n{MODULE}```\n")
    # The failing test's code is shown below it, as what the fix must make true.
    assert "The failing test (tests/test_x.py, lines 4-5):\n```\ndef test_add():" in task
    assert "assert -1 == 3" not in task


def test_a_test_run_blind_shows_the_module_too(
    rune: RunCli, double: ModelDouble, package: Path
) -> None:
    double.script(Reply(text="I cannot tell."))
    rune("fix", "tests/test_x.py", "-m", INSTRUCTION, "--no")

    task = _first_request(double)
    assert "Other file: pkg/x.py" in task
    assert "e.g. `# file: pkg/x.py`" in task


def test_a_check_that_cannot_run_costs_no_model_request(
    rune: RunCli, double: ModelDouble, package: Path
) -> None:
    check = CHECK.replace("tests/test_x.py", "tests/test_missing.py")
    finished = rune("fix", "tests/test_x.py", "--check-command", check, "--no")

    assert finished.returncode == 1
    assert double.chat_requests == []
    assert "outcome: failed (step 0/8): the check" in finished.stdout
    assert "cannot run: pytest was called wrongly or found no file" in finished.stdout
    assert "file or directory not found: tests/test_missing.py" in finished.stdout


REGISTRY = {
    "pkg/__init__.py": "",
    "pkg/commands.py": (
        "from pkg import words\n\n\ndef run(name, text):\n    return HANDLERS[name](text)\n"
        "\n\nHANDLERS = {'shout': words.shout, 'whisper': words.whisper}\n"
    ),
    "pkg/words.py": (
        "def shout(text):\n    return text.upper() + '!'\n\n\n"
        "def whisper(text):\n    return text.lower() + '?'\n"
    ),
    "tests/test_commands.py": (
        "from pkg.commands import run\n\n\ndef test_shout():\n    assert run('shout', 'a') == 'A!'"
        "\n\n\ndef test_whisper():\n    assert run('whisper', 'A') == 'a...'\n"
    ),
}


def test_a_function_the_test_reaches_only_at_run_time_is_shown(
    rune: RunCli, double: ModelDouble, workspace: Path
) -> None:
    for name, text in REGISTRY.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text, encoding="utf-8")
    before = sorted(workspace.rglob("*"))
    double.script(Reply(text="I cannot tell."))
    check = shlex.join([*PYTEST, "tests/test_commands.py::test_whisper"])
    rune("fix", "tests/test_commands.py", "-m", INSTRUCTION, "--check-command", check, "--no")

    task = _first_request(double)
    # `whisper` is called through a table: no reading of the test's names reaches it; what the
    # failing test ran does, and the run moves there.
    assert task.startswith(f"Task: {INSTRUCTION}\nFile: pkg/words.py\n")
    assert "    return text.lower() + '?'" in task
    assert "Other file: pkg/commands.py (run, run by the failing test and by 1 of the 1" in task
    # The recording ran in the run's scratch copy: the workspace holds what it held.
    assert sorted(workspace.rglob("*")) == before
