"""`rune-lsp fix` through the real entry point: a subprocess with its own stdin and stdout.

Kept to what needs the process boundary (stdout purity, real stdin, logging set-up, exit status
of the process); everything else runs in-process in test_fix_run.py, which is much faster.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.cli_process import run_cli
from tests.cli.conftest import SOURCE, RunCli
from tests.cli.scripts import ADD_FIXED, ONE_EDIT, TWO_EDITS
from tests.doubles.model_double import ModelDouble

CONTRACT_KEYS = {
    "runId",
    "outcome",
    "answer",
    "error",
    "iterationsUsed",
    "iterationBudget",
    "edits",
    "toolCalls",
    "verified",
    "receipt",
}


def test_yes_applies_the_edit_and_never_shows_the_api_key(
    workspace: Path, cli_env: dict[str, str], state_dir: Path
) -> None:
    secret = "sk-rune-test-0123456789"
    with ModelDouble(api_key=secret) as double:
        double.script(*ONE_EDIT)
        env = cli_env | {"RUNE_BASE_URL": double.ollama_url, "RUNE_API_KEY": secret}
        # DEBUG logging too: not even the HTTP client's logs may carry the key.
        finished = run_cli(
            ["fix", "app.py:2", "--yes", "--log-level", "debug"], cwd=workspace, env=env
        )
        assert double.chat_requests[0].headers["authorization"] == f"Bearer {secret}"
    assert finished.returncode == 0, finished.output
    assert (workspace / "app.py").read_text() == ADD_FIXED
    assert "Fixed `add`." in finished.stdout
    assert "outcome: completed (step 2/8)" in finished.stdout
    assert "applied  edit_file app.py" in finished.stdout
    assert "Traceback" not in finished.output
    assert secret not in finished.output
    receipts = list((state_dir / "receipts").iterdir())
    assert receipts
    for stored in receipts:
        assert secret not in stored.read_text()


def test_no_with_json_keeps_stdout_for_the_result_alone(
    cli: RunCli, double: ModelDouble, workspace: Path, state_dir: Path
) -> None:
    double.script(*ONE_EDIT)
    finished = cli("fix", "app.py", "--no", "--json")
    assert finished.returncode == 0
    assert (workspace / "app.py").read_text() == SOURCE
    result = json.loads(finished.stdout)  # the whole of stdout is one JSON document
    assert set(result) >= CONTRACT_KEYS
    assert result["outcome"] == "completed"
    [edit] = result["edits"]
    assert (edit["tool"], edit["path"], edit["status"]) == ("edit_file", "app.py", "rejected")
    receipt = Path(result["receipt"])
    assert receipt.parent == state_dir / "receipts"
    assert json.loads(receipt.read_text())["result"]["runId"] == result["runId"]
    # Progress, the diff and the (preset) answer went to stderr, without colour off a terminal.
    assert "step 1/8 · asking the model" in finished.stderr
    assert "step 1/8 · edit_file app.py" in finished.stderr
    assert "-    return a - b\n+    return a * 1 + b\n" in finished.stderr
    assert "Apply this edit? [y/n/q] n (--no)" in finished.stderr
    assert "\x1b[" not in finished.stderr


def test_piped_answers_then_end_of_input(cli: RunCli, double: ModelDouble, workspace: Path) -> None:
    double.script(*TWO_EDITS)
    finished = cli("fix", "app.py", "--json", stdin="maybe\ny\n")
    assert "Please answer y (apply), n (reject) or q" in finished.stderr
    assert "(end of input: rejected)" in finished.stderr
    assert (workspace / "app.py").read_text() == ADD_FIXED
    statuses = [e["status"] for e in json.loads(finished.stdout)["edits"]]
    assert statuses == ["applied", "rejected"]


def test_usage_error_exits_2_with_one_line(cli: RunCli, double: ModelDouble) -> None:
    finished = cli("fix", "missing.py", "--json")
    assert finished.returncode == 2
    assert finished.stdout == ""
    assert finished.stderr.strip() == "rune-lsp fix: no such file: missing.py"
    assert double.requests == []
