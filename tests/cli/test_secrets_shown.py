"""`rune-lsp fix` never prints a secret: its progress lines name the commands, patterns and paths
the model chose, and those may hold the API key, the base URL's password or a token."""

from __future__ import annotations

from tests.cli.conftest import RunCli
from tests.doubles.model_double import ModelDouble, Reply
from tests.e2e.scenario import calls

API_KEY = "planted-apikey-4f7c2a9d1e"
PASSWORD = "hunter2-Pw-77"
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_progress_lines_and_warnings_mask_secrets(cli: RunCli, double: ModelDouble) -> None:
    host = double.ollama_url.removeprefix("http://")
    double.script(
        calls(
            ("search", {"pattern": f"{API_KEY}|{PASSWORD}"}),
            ("read_file", {"path": f"{GITHUB}/notes.txt"}),
        ),
        Reply(text="Done."),
    )
    finished = cli(
        "fix",
        "app.py",
        "--no",
        env={"RUNE_API_KEY": API_KEY, "RUNE_BASE_URL": f"http://bob:{PASSWORD}@{host}"},
    )

    assert finished.returncode == 0, finished.stderr
    assert "step 1/8 · search" in finished.stderr and "read_file ***/notes.txt" in finished.stderr
    for secret in (API_KEY, PASSWORD, GITHUB):
        assert secret not in finished.stderr + finished.stdout, finished.stderr


def test_a_rejected_base_url_flag_is_not_echoed_with_its_password(cli: RunCli) -> None:
    finished = cli("fix", "app.py", "--no", "--base-url", f"htp://bob:{PASSWORD}@example.com")

    assert finished.returncode == 2
    assert "htp://bob:***@example.com" in finished.stderr
    assert PASSWORD not in finished.stderr
