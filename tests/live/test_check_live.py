"""`rune-lsp check` as a user runs it, configured by environment, against a real llama-server."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.live.llama import MODEL_ALIAS, LlamaServer

pytestmark = pytest.mark.live


def run_check(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rune_lsp", "check"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_check_reports_a_served_model_as_usable(
    llama: LlamaServer, clean_env: dict[str, str]
) -> None:
    env = {
        **clean_env,
        "RUNE_PROVIDER": "openai",
        "RUNE_BASE_URL": llama.base_url,
        "RUNE_MODEL": MODEL_ALIAS,
    }

    done = run_check(env)

    report = done.stdout
    assert report.startswith(f"rune-lsp check: openai at {llama.base_url}, model {MODEL_ALIAS}")
    assert "server reachable   yes" in report
    assert "model available    yes" in report
    # The exit status is the report's verdict, and a server that answers is usable.
    assert ("\nUsable." in report) == (done.returncode == 0)
    assert done.returncode == 0, report + done.stderr
    assert "test answer        ok" in report
