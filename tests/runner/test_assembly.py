"""A run assembled from the settings (runner/assembly.py): what the server and the CLI share."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from rune_lsp.loop.task import FixTarget, TaskDiagnostic
from rune_lsp.providers import make_model
from rune_lsp.runner.assembly import (
    TaskUnreadableError,
    assemble,
    compose_task,
    not_run,
    workspace_tools,
)
from rune_lsp.runner.verify import ShellVerifier
from rune_lsp.settings import Settings
from rune_lsp.store.receipts import ReceiptStore
from rune_lsp.tools.documents import DiskDocuments
from rune_lsp.tools.errors import AccessDenied
from tests.loop.fakes import ScriptedModel, answer
from tests.runner.conftest import RecordingReviewer

SOURCE = "def add(a, b):\n    return a - b\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = (tmp_path / "ws").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "calc.py").write_text(SOURCE, encoding="utf-8")
    return root


def test_the_tools_work_in_the_deepest_folder_holding_the_document(workspace: Path) -> None:
    settings = Settings(command_timeout=7)
    document = workspace / "src" / "calc.py"

    tools = workspace_tools(settings, document, [workspace.parent, workspace], DiskDocuments())

    assert tools.root == workspace
    assert tools.sandbox.single_file is None
    assert tools.command_timeout == 7


def test_without_folders_or_a_project_root_the_tools_see_one_file(workspace: Path) -> None:
    document = workspace / "src" / "calc.py"

    tools = workspace_tools(Settings(), document, [], DiskDocuments())

    assert tools.root == workspace / "src"
    assert tools.sandbox.single_file == document


def test_the_task_is_composed_from_the_text_the_tools_read(workspace: Path) -> None:
    document = workspace / "src" / "calc.py"
    tools = workspace_tools(Settings(), document, [workspace], DiskDocuments())
    diagnostic = TaskDiagnostic(line=1, message="wrong sign")
    target = FixTarget(
        document, start_line=1, end_line=1, instruction="fix it", diagnostics=(diagnostic,)
    )

    task = compose_task(tools, target)

    assert (task.path, task.text) == ("src/calc.py", SOURCE)
    assert (task.start_line, task.end_line, task.instruction) == (1, 1, "fix it")
    assert task.diagnostics == (diagnostic,)


def test_a_file_the_rules_refuse_is_access_denied(workspace: Path, tmp_path: Path) -> None:
    secret = tmp_path / "elsewhere" / ".env"
    secret.parent.mkdir()
    secret.write_text("TOKEN=abc\n", encoding="utf-8")
    tools = workspace_tools(Settings(), secret, [workspace], DiskDocuments())

    with pytest.raises(AccessDenied):
        compose_task(tools, FixTarget(secret))


def test_a_missing_or_unusable_file_is_unreadable(workspace: Path) -> None:
    (workspace / "blob.bin").write_bytes(b"\x00\x01\x02")
    tools = workspace_tools(Settings(), workspace / "src" / "calc.py", [workspace], DiskDocuments())

    with pytest.raises(TaskUnreadableError, match="cannot read"):
        compose_task(tools, FixTarget(workspace / "missing.py"))
    with pytest.raises(TaskUnreadableError):
        compose_task(tools, FixTarget(workspace / "blob.bin"))


async def test_a_run_is_built_from_the_settings(workspace: Path) -> None:
    settings = Settings(
        max_iterations=3,
        repeat_warn_at=2,
        repeat_block_at=4,
        check_command="true",
        command_timeout=9,
        api_key="sk-assembly-0123456789",
    )
    document = workspace / "src" / "calc.py"
    tools = workspace_tools(settings, document, [workspace], DiskDocuments())

    async def save_first(paths: Sequence[str]) -> list[str]:
        return []

    parts = assemble(
        settings,
        model=ScriptedModel.of(answer()),
        tools=tools,
        task="Fix the bug.",
        document=document,
        document_uri=document.as_uri(),
        session_id="session-9",
        save_first=save_first,
    )

    config = parts.loop.config
    assert (config.max_iterations, config.repeat_warn_at, config.repeat_block_at) == (3, 2, 4)
    assert parts.loop.tools is tools and parts.tools is tools
    assert parts.verifier == ShellVerifier("true", cwd=workspace, timeout=9, save_first=save_first)
    meta = parts.meta
    assert (meta.provider, meta.model, meta.base_url) == (
        settings.provider,
        settings.model,
        settings.resolved_base_url,
    )
    assert (meta.task, meta.document_uri, meta.document_path) == (
        "Fix the bug.",
        document.as_uri(),
        str(document),
    )
    assert meta.session_id == "session-9" and meta.workspace_root == str(workspace)
    assert "sk-assembly-0123456789" in meta.secrets


async def test_the_receipt_names_what_the_provider_serves(workspace: Path) -> None:
    settings = Settings(provider="openai", base_url="http://127.0.0.1:9/v1/", model="m1")
    document = workspace / "src" / "calc.py"
    model = make_model(settings)
    try:
        parts = assemble(
            settings,
            model=model,
            tools=workspace_tools(settings, document, [workspace], DiskDocuments()),
            task="t",
            document=document,
            document_uri=document.as_uri(),
        )
    finally:
        await model.aclose()

    assert (parts.meta.model, parts.meta.base_url) == (model.model, model.endpoint.base_url)
    assert parts.verifier is None  # no checkCommand: no check


async def test_the_driver_gets_the_parts_and_the_front_ends_choices(
    workspace: Path, tmp_path: Path
) -> None:
    document = workspace / "src" / "calc.py"
    settings = Settings()
    parts = assemble(
        settings,
        model=ScriptedModel.of(answer("Nothing to do.")),
        tools=workspace_tools(settings, document, [workspace], DiskDocuments()),
        task="Fix the bug.",
        document=document,
        document_uri=document.as_uri(),
    )
    receipts = ReceiptStore(tmp_path / "state")

    driver = parts.driver(
        RecordingReviewer(),
        receipt_store=receipts,
        concurrent_reviews=True,
        cancel_means="interrupt",
    )
    result = await driver.start("run-a")

    assert (driver.loop, driver.meta, driver.verifier) == (parts.loop, parts.meta, None)
    assert driver.concurrent_reviews and driver.cancel_means == "interrupt"
    assert result.outcome == "completed"
    assert result.receipt == str(receipts.receipt_path("run-a"))


def test_a_run_that_never_started_has_the_settings_budget() -> None:
    result = not_run("run-b", "failed", "refused", Settings(max_iterations=5))

    assert (result.run_id, result.outcome, result.error) == ("run-b", "failed", "refused")
    assert (result.iterations_used, result.iteration_budget) == (0, 5)
