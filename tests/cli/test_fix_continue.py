"""`rune-lsp fix --continue RUN_ID -m ...`: a follow-up turn from the terminal, as
`rune.fixThis` with `continues` is in an editor (docs/interface.md#executables)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import RunCli
from tests.cli.scripts import ADD_FIXED, FIX_SUB, ONE_EDIT
from tests.doubles.model_double import ModelDouble, Reply

FIXED_BOTH = "def add(a, b):\n    return a * 1 + b\n\n\ndef sub(a, b):\n    return a - b\n"


def _first_run(rune: RunCli, double: ModelDouble) -> dict[str, object]:
    double.script(*ONE_EDIT)
    finished = rune("fix", "app.py", "--yes", "--json", "--first-turn", "tools")
    assert finished.returncode == 0
    result: dict[str, object] = json.loads(finished.stdout)
    return result


def test_a_follow_up_continues_the_runs_conversation(
    rune: RunCli, double: ModelDouble, workspace: Path
) -> None:
    first = _first_run(rune, double)
    assert (workspace / "app.py").read_text() == ADD_FIXED
    earlier = len(double.chat_requests)
    double.script(Reply(text="And sub.", tool_calls=(FIX_SUB,)), Reply(text="Fixed `sub` too."))

    finished = rune(
        "fix",
        "app.py",
        "--yes",
        "--json",
        "--continue",
        str(first["runId"]),
        "-m",
        "now fix sub as well",
    )

    result = json.loads(finished.stdout)
    assert (finished.returncode, result["outcome"]) == (0, "completed")
    assert result["runId"] != first["runId"]
    assert (workspace / "app.py").read_text() == FIXED_BOTH
    messages = double.chat_requests[earlier].body["messages"]
    said = [m["content"] for m in messages if m["role"] in ("user", "assistant")]
    # The first run's conversation as its model saw it, its answer last, then the follow-up.
    assert "Fixed `add`." in said
    assert said[-1] == "now fix sub as well"
    assert said.index("Fixed `add`.") < len(said) - 1


def test_the_human_report_names_the_run_to_continue(rune: RunCli, double: ModelDouble) -> None:
    double.script(*ONE_EDIT)
    finished = rune("fix", "app.py", "--yes")
    [line] = [line for line in finished.stdout.splitlines() if line.startswith("run: ")]
    assert len(line.removeprefix("run: ")) == 12


def test_an_unknown_run_fails_before_any_model_request(rune: RunCli, double: ModelDouble) -> None:
    finished = rune("fix", "app.py", "--yes", "--json", "--continue", "0123456789ab", "-m", "go on")

    result = json.loads(finished.stdout)
    assert finished.returncode == 1
    assert result["outcome"] == "failed"
    assert "run 0123456789ab cannot be continued" in result["error"]
    assert "cannot be continued" in finished.stderr
    assert double.requests == []


def test_continue_without_a_message_is_a_usage_error(rune: RunCli, double: ModelDouble) -> None:
    finished = rune("fix", "app.py", "--yes", "--continue", "0123456789ab")

    assert finished.returncode == 2
    assert "--continue needs -m" in finished.stderr
    assert double.requests == []
