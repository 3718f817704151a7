"""Starting the server imports only what answering `initialize` needs.

Each check runs in a fresh interpreter: the test process has imported everything already.
"""

from __future__ import annotations

import subprocess
import sys

#: Modules of later features: runs, tools, providers, stores, and pydantic with them.
LATER = (
    "pydantic",
    "httpx",
    "rune_lsp.settings",
    "rune_lsp.loop.state",
    "rune_lsp.runner.driver",
    "rune_lsp.tools.executor",
    "rune_lsp.store.receipt",
    "rune_lsp.store.receipts",
    "rune_lsp.providers",
    "rune_lsp.server.runs",
    "rune_lsp.server.review",
    "rune_lsp.server.desk",
    "rune_lsp.review.hunk_review",
    "rune_lsp.server.commands",
)


def imported_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    return set(done.stdout.split())


def test_the_server_starts_without_the_later_features() -> None:
    modules = imported_after(
        "from rune_lsp.__main__ import parse_args\n"
        "assert parse_args(['--stdio', '--log-level', 'warning']).command is None\n"
        "from rune_lsp.server import create_server\n"
        "create_server()"
    )
    assert "rune_lsp.server.lifecycle" in modules  # the probe did build the server
    assert sorted(modules.intersection(LATER)) == []


def test_a_subcommand_still_gets_its_settings_flags() -> None:
    modules = imported_after(
        "from rune_lsp.__main__ import parse_args\n"
        "assert parse_args(['check', '--model', 'm']).setting_model == 'm'"
    )
    assert "rune_lsp.settings" in modules


def test_the_run_machinery_is_frozen_out_of_the_collector_once_built() -> None:
    # A fresh interpreter: gc.freeze() is process-wide, and this test process is not fresh.
    probe = (
        "import gc\n"
        "from rune_lsp.server import create_server\n"
        "from rune_lsp.server.services import Services\n"
        "services = Services(create_server())\n"
        "before = gc.get_freeze_count()\n"
        "services.runs\n"
        "import sys\n"
        "print(before, gc.get_freeze_count(), 'httpx' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    before, after, httpx_loaded = done.stdout.split()
    assert int(before) == 0
    assert int(after) > 10_000  # the imported modules, pydantic's schemas and httpx among them
    assert httpx_loaded == "True"
