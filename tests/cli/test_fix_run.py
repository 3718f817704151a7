"""`rune-lsp fix` behaviours run in-process (same code path as the entry point, minus the fork)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import SOURCE, RunCli
from tests.cli.scripts import ADD_FIXED, ONE_EDIT
from tests.doubles.model_double import HttpError, ModelDouble, Reply
from tests.e2e.scenario import edit


def _exit_with(code: int) -> str:
    return shlex.join([sys.executable, "-c", f"import sys; sys.exit({code})"])


def test_the_task_names_the_file_range_and_instruction(rune: RunCli, double: ModelDouble) -> None:
    rune("fix", "app.py:5-6", "--no", "-m", "make sub subtract")
    task = double.chat_requests[0].body["messages"][-1]["content"]
    assert "Task: make sub subtract" in task
    assert "File: app.py" in task
    assert "Range: lines 5-6" in task


def test_a_range_past_the_end_is_cut_to_the_last_line(rune: RunCli, double: ModelDouble) -> None:
    rune("fix", "app.py:5-99", "--no")
    assert "Range: lines 5-6" in double.chat_requests[0].body["messages"][-1]["content"]


def test_yes_with_json_reports_the_applied_edit(
    rune: RunCli, double: ModelDouble, workspace: Path
) -> None:
    double.script(*ONE_EDIT)
    finished = rune("fix", "app.py", "--yes", "--json")
    result = json.loads(finished.stdout)
    assert finished.returncode == 0
    assert (result["outcome"], result["answer"]) == ("completed", "Fixed `add`.")
    assert (result["iterationsUsed"], result["iterationBudget"]) == (2, 8)
    assert (result["error"], result["verified"]) == (None, None)
    [edit] = result["edits"]
    assert (edit["tool"], edit["path"], edit["status"]) == ("edit_file", "app.py", "applied")
    assert result["toolCalls"] == [{"name": "edit_file", "status": "ok"}]
    assert (workspace / "app.py").read_text() == ADD_FIXED


def test_rejection_is_reported_to_the_model(rune: RunCli, double: ModelDouble) -> None:
    double.script(*ONE_EDIT)
    rune("fix", "app.py", "--no")
    tool_result = double.chat_requests[1].body["messages"][-1]
    assert tool_result["role"] == "tool"
    assert "The user rejected this change" in tool_result["content"]


@pytest.mark.parametrize(
    ("script", "outcome", "code"),
    [
        ((Reply(text="Nothing to change."),), "completed", 0),
        ((Reply(text=""),), "incomplete", 1),
        ((HttpError(500, "model runner crashed"),), "failed", 1),
    ],
)
def test_exit_status_follows_the_outcome(
    rune: RunCli, double: ModelDouble, script: tuple[Reply | HttpError], outcome: str, code: int
) -> None:
    double.script(*script)
    finished = rune("fix", "app.py", "--no", "--json")
    assert finished.returncode == code
    assert json.loads(finished.stdout)["outcome"] == outcome


def test_provider_failure_shows_the_reason(rune: RunCli, double: ModelDouble) -> None:
    double.script(HttpError(500, "model runner crashed"))
    finished = rune("fix", "app.py", "--no")
    assert "outcome: failed (step 1/8)" in finished.stdout
    assert "model runner crashed" in finished.stdout


def test_server_down_gives_the_sentence(rune: RunCli, double: ModelDouble) -> None:
    double.refuse_connections()
    finished = rune("fix", "app.py", "--no")
    assert finished.returncode == 1
    assert f"Ollama is not reachable at {double.ollama_url}" in finished.stdout
    assert "ollama serve" in finished.stdout


def test_state_dir_flag_beats_the_environment(
    rune: RunCli, double: ModelDouble, tmp_path: Path, state_dir: Path
) -> None:
    flagged = tmp_path / "flagged-state"
    result = json.loads(rune("fix", "app.py", "--no", "--json", "--state-dir", str(flagged)).stdout)
    assert Path(result["receipt"]).parent == flagged / "receipts"
    assert Path(result["receipt"]).is_file()
    assert not state_dir.exists()


def test_model_flag_beats_the_environment(rune: RunCli, double: ModelDouble) -> None:
    rune("fix", "app.py", "--no", "--model", "qwen3:14b", env={"RUNE_MODEL": "llama3"})
    assert double.chat_requests[0].body["model"] == "qwen3:14b"


def test_environment_beats_the_default(rune: RunCli, double: ModelDouble) -> None:
    finished = rune("fix", "app.py", "--no", env={"RUNE_MODEL": "llama3"})
    assert double.requests[0].body["model"] == "llama3"
    assert "llama3" in finished.stdout  # the model is not there: the run says which one


def test_max_iterations_flag_sets_the_budget(rune: RunCli, double: ModelDouble) -> None:
    result = json.loads(rune("fix", "app.py", "--no", "--json", "--max-iterations", "3").stdout)
    assert result["iterationBudget"] == 3


def test_passing_check_sets_verified_true(rune: RunCli, double: ModelDouble) -> None:
    double.script(*ONE_EDIT)
    finished = rune("fix", "app.py", "--yes", "--json", "--check-command", _exit_with(0))
    result = json.loads(finished.stdout)
    assert result["verified"] is True
    assert "passed (exit 0)" in result["answer"]
    assert finished.returncode == 0


def test_failing_check_sets_verified_false(rune: RunCli, double: ModelDouble) -> None:
    double.script(*ONE_EDIT)
    finished = rune("fix", "app.py", "--yes", "--check-command", _exit_with(3))
    assert "verified: no" in finished.stdout
    assert "failed (exit 3)" in finished.stdout


def test_check_does_not_verify_without_an_applied_edit(
    rune: RunCli, double: ModelDouble, workspace: Path
) -> None:
    marker = workspace / "check-ran"
    command = shlex.join([sys.executable, "-c", f"open({str(marker)!r}, 'a').write('ran ')"])
    double.script(*ONE_EDIT)
    # One candidate: the check of candidates in a scratch copy would run it once more.
    finished = rune(
        "fix", "app.py", "--no", "--json", "--check-command", command, "--candidates", "1"
    )
    result = json.loads(finished.stdout)
    assert result["verified"] is None
    assert marker.read_text().split() == ["ran"]  # only before the first turn, for the model


def test_a_wrong_api_key_is_not_echoed(
    rune: RunCli, workspace: Path, cli_env: dict[str, str]
) -> None:
    wrong = "sk-wrong-key-987654321"
    with ModelDouble(api_key="sk-right") as double:
        finished = rune(
            "fix", "app.py", "--no", env={"RUNE_BASE_URL": double.ollama_url, "RUNE_API_KEY": wrong}
        )
    assert finished.returncode == 1
    assert "outcome: failed" in finished.stdout
    assert wrong not in finished.output


def test_without_an_answer_source_nothing_is_applied(
    rune: RunCli, double: ModelDouble, workspace: Path
) -> None:
    # Under pytest, stdin has no file descriptor: that must count as end of input.
    double.script(*ONE_EDIT)
    finished = rune("fix", "app.py")
    assert (workspace / "app.py").read_text() == SOURCE
    assert "(end of input: rejected)" in finished.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.py"], "no such file: missing.py"),
        (["app.py:0"], "lines are counted from 1, got 0 in 'app.py:0'"),
        (["app.py:4-2"], "the range ends before it starts (4-2) in 'app.py:4-2'"),
        (["app.py:40"], "line 40 is past the end of app.py (6 lines)"),
        (["."], "cannot fix .: it is a directory"),
        (["blob.bin"], "cannot fix blob.bin: it is a binary file (contains NUL bytes)"),
        (["app.py", "--max-iterations", "9"], "invalid --max-iterations: Input should be less"),
        (["app.py", "--base-url", "localhost:1"], "invalid --base-url: Value error, must start"),
    ],
)
def test_bad_input_exits_2_with_a_clear_message(
    rune: RunCli, double: ModelDouble, workspace: Path, args: list[str], message: str
) -> None:
    (workspace / "blob.bin").write_bytes(b"\x00\x01\x02")
    finished = rune("fix", *args, "--no", "--json")
    assert finished.returncode == 2
    assert finished.stdout == ""
    assert finished.stderr.startswith(f"rune-lsp fix: {message}")
    assert "Traceback" not in finished.stderr
    assert double.requests == []


def test_a_bad_environment_value_warns_and_keeps_the_default(
    rune: RunCli, double: ModelDouble
) -> None:
    finished = rune("fix", "app.py", "--no", env={"RUNE_PROVIDER": "bedrock"})
    assert "setting `provider` ignored" in finished.stderr
    assert finished.returncode == 0
    assert double.chat_requests  # the default provider (ollama) was used


def test_an_unwritable_state_dir_fails_the_run_naming_it(
    rune: RunCli, double: ModelDouble, tmp_path: Path
) -> None:
    # Issue 25, item 6: the first review's pause raised OSError out of the run.
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    state = blocker / "state"
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="Fixed."))

    finished = rune("fix", "app.py", "--yes", env={"RUNE_STATE_DIR": str(state)})

    assert finished.returncode == 1
    assert f"the state directory {state} is not writable" in finished.stderr
    assert "outcome: failed" in finished.stdout and str(state) in finished.stdout
    assert not double.chat_requests
