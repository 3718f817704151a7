"""A run on a failing test reaches the module under test (issue 26, point 2): the task is
composed with the files the test imports, then again with those the check's traceback names;
a block written for another file is that file's edit, reviewed like any other."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from rune_lsp.loop.task import FixTarget
from rune_lsp.runner.assembly import assemble, compose_task, workspace_tools
from rune_lsp.settings import Settings
from rune_lsp.store.receipts import ReceiptStore
from rune_lsp.tools.documents import DiskDocuments
from tests.loop.fakes import ScriptedModel, answer
from tests.runner.conftest import RecordingReviewer

API = "from pkg.core import ratio\n\n\ndef half(x):\n    return ratio(x, 2)\n"
CORE = "def ratio(a, b):\n    return a / (b - b)\n"
TEST = (
    "import unittest\n\nfrom pkg.api import half\n\n\nclass T(unittest.TestCase):\n"
    "    def test_half(self):\n        self.assertEqual(half(4), 2)\n"
)
CHECK = shlex.join([sys.executable, "-B", "-m", "unittest", "tests.test_api"])
FIX = "Fixed:\n\n```python\n# file: pkg/core.py\ndef ratio(a, b):\n    return a / b\n```\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = (tmp_path / "ws").resolve()
    (root / ".git").mkdir(parents=True)
    (root / "pkg").mkdir()
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "api.py").write_text(API, encoding="utf-8")
    (root / "pkg" / "core.py").write_text(CORE, encoding="utf-8")
    (root / "tests" / "__init__.py").write_text("", encoding="utf-8")
    (root / "tests" / "test_api.py").write_text(TEST, encoding="utf-8")
    return root


async def _run(
    workspace: Path, tmp_path: Path, model: ScriptedModel, reviewer: RecordingReviewer
) -> str:
    """The run's first request, as the model read it."""
    settings = Settings(check_command=CHECK, max_iterations=3, state_dir=str(tmp_path / "state"))
    document = workspace / "tests" / "test_api.py"
    tools = workspace_tools(settings, document, [workspace], DiskDocuments())
    task = compose_task(tools, FixTarget(path=document, instruction="The test fails."))
    parts = assemble(
        settings,
        model=model,
        tools=tools,
        task=task,
        document=document,
        document_uri=document.as_uri(),
    )
    driver = parts.driver(reviewer, receipt_store=ReceiptStore(tmp_path / "state"))
    await driver.start("reach-1")
    assert driver.meta.task != task.prompt()  # recomposed: the receipt keeps what was sent
    assert driver.meta.task in model.calls[0].messages[1].content
    return model.calls[0].messages[1].content


async def test_the_files_the_traceback_names_join_the_task(workspace: Path, tmp_path: Path) -> None:
    model = ScriptedModel.of(answer("I cannot tell."))

    first = await _run(workspace, tmp_path, model, RecordingReviewer())

    core = first.index("Other file: pkg/core.py (named by the failing check's traceback):")
    api = first.index("Other file: pkg/api.py (named by the failing check's traceback):")
    assert core < api  # innermost first: where the error was raised
    assert "    return a / (b - b)" in first
    assert "ZeroDivisionError" in first  # the check's report, after the files


async def test_a_block_for_the_module_is_its_edit_reviewed(workspace: Path, tmp_path: Path) -> None:
    reviewer = RecordingReviewer()
    model = ScriptedModel.of(answer(FIX))

    await _run(workspace, tmp_path, model, reviewer)

    assert [(c.tool, Path(getattr(c, "path", "")).name) for c in reviewer.seen] == [
        ("edit_file", "core.py")
    ]
    assert (workspace / "pkg" / "core.py").read_text(encoding="utf-8") == (
        "def ratio(a, b):\n    return a / b\n"
    )
