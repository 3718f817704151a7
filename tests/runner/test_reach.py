"""A run on a failing test reaches the module under test (issue 26, point 2): the task is
composed with the files the test imports, then, once the check failed, the run moves to the
module its traceback or its failing tests point to and asks as Fix this on that module asks;
a block written for another file is that file's edit, reviewed like any other."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from rune_lsp.loop.events import CheckStarted, RunEvent, TargetMoved
from rune_lsp.loop.runtime import AgentLoop, LoopConfig
from rune_lsp.loop.state import CheckReport, PreparedChange
from rune_lsp.loop.task import FixTarget
from rune_lsp.runner.assembly import assemble, compose_task, workspace_tools
from rune_lsp.runner.driver import Recomposed, RunDriver
from rune_lsp.runner.run_meta import RunMeta
from rune_lsp.runner.spectrum import NO_SPECTRUM, Spectrum
from rune_lsp.runner.verify import ShellVerifier
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
    workspace: Path,
    tmp_path: Path,
    model: ScriptedModel,
    reviewer: RecordingReviewer,
    candidates: int = 4,
    events: list[RunEvent] | None = None,
) -> str:
    """The run's first request, as the model read it; what it reported goes to `events`."""
    events = [] if events is None else events
    settings = Settings(
        check_command=CHECK,
        max_iterations=3,
        state_dir=str(tmp_path / "state"),
        candidates=candidates,
    )
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
    driver.loop.on_event = events.append
    await driver.start("reach-1")
    # The receipt keeps the task as it was sent (recomposed once the check failed).
    assert driver.meta.task in model.calls[0].messages[1].content
    return model.calls[0].messages[1].content


async def test_a_failing_test_moves_the_run_to_the_module_its_traceback_ends_in(
    workspace: Path, tmp_path: Path
) -> None:
    model = ScriptedModel.of(answer("I cannot tell."))
    events: list[RunEvent] = []

    first = await _run(workspace, tmp_path, model, RecordingReviewer(), events=events)

    assert [e.path for e in events if isinstance(e, TargetMoved)] == ["pkg/core.py"]
    # The check ran once: the loop takes the report the move was decided on as its own.
    assert [type(e) for e in events if isinstance(e, CheckStarted | TargetMoved)] == [
        CheckStarted,
        TargetMoved,
    ]
    # Asked as Fix this on pkg/core.py asks, the other file the traceback names beside it.
    assert first.startswith("Task: The test fails.\nFile: pkg/core.py\n")
    assert "    return a / (b - b)" in first
    assert "Other file: pkg/api.py (named by the failing check's traceback):" in first
    # The failing test is shown as what the fix must make true, not as a file to change.
    shown = "The failing test (tests/test_api.py, lines 7-8):\n```\n    def test_half(self):\n"
    assert shown in first and "# file: tests/test_api.py" not in first
    # The verdict is withheld, as on a module: candidates are judged by the check.
    assert "ZeroDivisionError" not in first


async def test_with_one_candidate_the_verdict_on_the_module_joins_the_task(
    workspace: Path, tmp_path: Path
) -> None:
    model = ScriptedModel.of(answer("I cannot tell."))

    first = await _run(workspace, tmp_path, model, RecordingReviewer(), candidates=1)

    assert first.startswith("Task: The test fails.\nFile: pkg/core.py\n")
    assert "ZeroDivisionError" in first
    # The file shown beside the module is named with it: the bug may be there instead.
    assert "the bug is in pkg/core.py or pkg/api.py. Change that code so that" in first
    assert "e.g. `# file: pkg/api.py`." in first


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


async def test_an_unnamed_block_is_the_moved_to_modules_code(
    workspace: Path, tmp_path: Path
) -> None:
    reviewer = RecordingReviewer()
    fix = "```python\ndef ratio(a, b):\n    return a / b\n```\n"
    model = ScriptedModel.of(answer(fix))

    await _run(workspace, tmp_path, model, reviewer)

    assert [Path(getattr(c, "path", "")).name for c in reviewer.seen] == ["core.py"]
    assert (workspace / "tests" / "test_api.py").read_text(encoding="utf-8") == TEST


async def test_a_block_naming_the_test_is_still_the_tests_edit(
    workspace: Path, tmp_path: Path
) -> None:
    reviewer = RecordingReviewer()
    test_fix = TEST.replace("half(4), 2", "half(4), 4")
    model = ScriptedModel.of(answer(f"```python\n# file: tests/test_api.py\n{test_fix}```\n"))

    await _run(workspace, tmp_path, model, reviewer)

    assert [Path(getattr(c, "path", "")).name for c in reviewer.seen] == ["test_api.py"]
    assert (workspace / "pkg" / "core.py").read_text(encoding="utf-8") == CORE


async def test_a_passing_check_leaves_the_run_on_the_test(workspace: Path, tmp_path: Path) -> None:
    (workspace / "pkg" / "core.py").write_text("def ratio(a, b):\n    return a / b\n", "utf-8")
    model = ScriptedModel.of(answer("Nothing to fix."))
    events: list[RunEvent] = []

    first = await _run(workspace, tmp_path, model, RecordingReviewer(), events=events)

    assert not any(isinstance(e, TargetMoved) for e in events)
    assert first.startswith("Task: The test fails.\nFile: tests/test_api.py\n")
    assert "passes already (exit 0)" in first


# What the failing tests ran (runner/spectrum.py) joins the task.

REGISTRY = (
    "from pkg import words\n\n\ndef run(name, text):\n    return HANDLERS[name](text)\n\n\n"
    'HANDLERS = {"shout": words.shout, "whisper": words.whisper}\n'
)
WORDS = (
    'def shout(text):\n    return text.upper() + "!"\n\n\n'
    'def whisper(text):\n    return text.lower() + "!"  # the bug: "..."\n'
)
REGISTRY_TEST = (
    "from pkg.commands import run\n\n\ndef test_shout():\n"
    '    assert run("shout", "a") == "A!"\n\n\ndef test_whisper():\n'
    '    assert run("whisper", "A") == "a..."\n'
)


async def test_a_function_only_the_failing_test_ran_is_the_module_fixed(
    workspace: Path, tmp_path: Path
) -> None:
    (workspace / "pkg" / "commands.py").write_text(REGISTRY, encoding="utf-8")
    (workspace / "pkg" / "words.py").write_text(WORDS, encoding="utf-8")
    (workspace / "tests" / "test_commands.py").write_text(REGISTRY_TEST, encoding="utf-8")
    command = [sys.executable, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    check = shlex.join([*command, "tests/test_commands.py::test_whisper"])
    settings = Settings(check_command=check, max_iterations=2, state_dir=str(tmp_path / "state"))
    document = workspace / "tests" / "test_commands.py"
    tools = workspace_tools(settings, document, [workspace], DiskDocuments())
    task = compose_task(tools, FixTarget(path=document, instruction="The test fails."))
    model = ScriptedModel.of(answer("I cannot tell."))
    parts = assemble(
        settings, model=model, tools=tools, task=task, document=document, document_uri="file:///t"
    )

    driver = parts.driver(RecordingReviewer(), receipt_store=ReceiptStore(tmp_path / "state"))
    await driver.start("reach-2")

    first = model.calls[0].messages[1].content
    # Only a run reaches `whisper` (through the table); the static reader finds `run`, shown
    # beside it.
    assert first.startswith("Task: The test fails.\nFile: pkg/words.py\n")
    assert "    return text.lower() + " in first
    assert "Other file: pkg/commands.py (" in first


def test_a_target_that_is_no_test_is_composed_once(workspace: Path, tmp_path: Path) -> None:
    settings = Settings(check_command=CHECK, state_dir=str(tmp_path / "state"))
    document = workspace / "pkg" / "core.py"
    tools = workspace_tools(settings, document, [workspace], DiskDocuments())
    task = compose_task(tools, FixTarget(path=document, instruction="Fix it."))

    parts = assemble(
        settings,
        model=ScriptedModel.of(),
        tools=tools,
        task=task,
        document=document,
        document_uri=document.as_uri(),
    )

    # Nothing is shown beside it after the check: nothing to record or compose again.
    assert parts.recompose is None


class _CountingChecks:
    """CandidateChecks that count the recordings asked for."""

    def __init__(self) -> None:
        self.recordings = 0

    async def check(self, changes: Sequence[PreparedChange]) -> CheckReport:
        raise AssertionError("no candidate is checked here")

    async def spectrum(self) -> Spectrum:
        self.recordings += 1
        return NO_SPECTRUM

    async def close(self) -> None:
        return None


@pytest.mark.parametrize(
    ("check", "seconds", "recordings", "failed"),
    [
        ("exit 1", 30.0, 1, True),  # a failure: what its tests ran is recorded
        ("exit 0", 30.0, 0, False),  # a pass: nothing to localise, nowhere to move
        # Cut by its time-out: a recording would be cut too, but a hang is a failure, and the
        # run may still move to the module the test imports.
        ("sleep 30", 0.3, 0, True),
    ],
)
async def test_the_failing_tests_run_is_recorded_only_after_a_failure(
    workspace: Path, tmp_path: Path, check: str, seconds: float, recordings: int, failed: bool
) -> None:
    checks = _CountingChecks()
    told: list[bool] = []

    def recompose(output: str, check_failed: bool, spectrum: Spectrum) -> Recomposed:
        told.append(check_failed)
        return Recomposed("Fix it, again.")

    driver = RunDriver(
        loop=AgentLoop(
            ScriptedModel.of(answer("No change.")),
            workspace_tools(
                Settings(), workspace / "tests" / "test_api.py", [workspace], DiskDocuments()
            ),
            LoopConfig(),
        ),
        reviewer=RecordingReviewer(),
        meta=RunMeta(
            provider="ollama",
            model="scripted",
            base_url="http://127.0.0.1:1",
            task="Fix it.",
            document_uri="file:///t",
            document_path=str(workspace / "tests" / "test_api.py"),
            workspace_root=str(workspace),
        ),
        receipt_store=ReceiptStore(tmp_path / "state"),
        verifier=ShellVerifier(check, cwd=workspace, timeout=seconds),
        candidates=checks,
        recompose=recompose,
    )

    await driver.start("reach-3")

    assert checks.recordings == recordings
    assert told == [failed]
