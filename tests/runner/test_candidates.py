"""Candidate changes checked in a real scratch copy with a real check command."""

from __future__ import annotations

import asyncio
import gc
import json
import shlex
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from rune_lsp.loop.runtime import AgentLoop, LoopConfig
from rune_lsp.loop.state import PreparedEdit
from rune_lsp.runner.candidates import ScratchChecks
from rune_lsp.runner.check_result import count_failures
from rune_lsp.runner.driver import RunDriver
from rune_lsp.runner.run_meta import RunMeta
from rune_lsp.runner.scratch import ScratchCopy, ScratchError
from rune_lsp.runner.spectrum import NO_SPECTRUM
from rune_lsp.runner.verify import ShellVerifier
from rune_lsp.store.receipts import ReceiptStore
from rune_lsp.tools.documents import DiskDocuments
from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.sandbox import Sandbox
from tests.loop.fakes import ScriptedModel, answer
from tests.runner.conftest import RecordingReviewer

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
#: A tiny test runner: pytest's summary line, exit 1 on a failure.
CHECK = """\
import sys
sys.path.insert(0, ".")
from calc import add
failed = [case for case in [(1, 2, 3), (2, 2, 4)] if add(*case[:2]) != case[2]]
print(f"{len(failed)} failed, {2 - len(failed)} passed in 0.01s" if failed else "2 passed")
sys.exit(1 if failed else 0)
"""


class Buffers(DiskDocuments):
    """The disk, with some documents open in an editor holding unsaved text."""

    def __init__(self, texts: dict[Path, str]) -> None:
        super().__init__()
        self.texts = texts

    def read_text(self, path: Path) -> str | None:
        return self.texts[path] if path in self.texts else super().read_text(path)

    def is_open(self, path: Path) -> bool:
        return path in self.texts

    def open_paths(self) -> Iterable[Path]:
        return tuple(self.texts)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "calc.py").write_text(BUGGY)
    (root / "check.py").write_text(CHECK)
    return root.resolve()


def checks(
    workspace: Path, tmp_path: Path, documents: DiskDocuments | None = None
) -> ScratchChecks:
    command = shlex.join([sys.executable, "check.py"])
    return ScratchChecks(
        command,
        root=workspace,
        documents=documents or DiskDocuments(),
        timeout=30,
        parent=tmp_path / "scratch",
    )


def stored_result(receipt: str) -> dict[str, object]:
    stored: dict[str, dict[str, object]] = json.loads(Path(receipt).read_text())
    return stored["result"]


def edit(workspace: Path, new_text: str, name: str = "calc.py") -> PreparedEdit:
    path = workspace / name
    return PreparedEdit(
        edit_id="e1",
        call_id="c1",
        tool="edit_file",
        path=str(path),
        old_text=path.read_text(),
        new_text=new_text,
    )


async def test_a_passing_candidate_passes_and_the_users_file_is_untouched(
    workspace: Path, tmp_path: Path
) -> None:
    scratch = checks(workspace, tmp_path)
    try:
        report = await scratch.check([edit(workspace, FIXED)])
    finally:
        await scratch.close()
    assert report.passed and report.failures == 0
    assert (workspace / "calc.py").read_text() == BUGGY


async def test_a_failing_candidate_reports_its_output_and_failure_count(
    workspace: Path, tmp_path: Path
) -> None:
    scratch = checks(workspace, tmp_path)
    try:
        half = "def add(a, b):\n    return 4 if a == 2 else 0\n"
        report = await scratch.check([edit(workspace, half)])
        fixed = await scratch.check([edit(workspace, FIXED)])
        buggy = await scratch.check([])  # the previous candidate was undone
    finally:
        await scratch.close()
    assert (report.exit_code, report.failures) == (1, 1)
    assert "1 failed, 1 passed" in report.output
    assert fixed.passed
    assert (buggy.exit_code, buggy.failures) == (1, 2)


async def test_the_open_buffers_text_wins_over_the_disk(workspace: Path, tmp_path: Path) -> None:
    scratch = checks(workspace, tmp_path, Buffers({workspace / "calc.py": FIXED}))
    try:
        report = await scratch.check([])
    finally:
        await scratch.close()
    assert report.passed
    assert (workspace / "calc.py").read_text() == BUGGY


async def test_the_copys_code_wins_over_an_editable_install_of_the_workspace(
    workspace: Path, tmp_path: Path
) -> None:
    # What `pip install -e .` leaves: a site folder whose `.pth` names the workspace. Bare
    # `pytest` puts neither the workspace nor the copy on `sys.path`, so without the copy
    # first on `PYTHONPATH` the check would import the user's calc.py, not the candidate's.
    site_folder = tmp_path / "site"
    site_folder.mkdir()
    (site_folder / "__editable__.calc.pth").write_text(f"{workspace}\n")
    tests = workspace / "tests"
    tests.mkdir()
    (tests / "check.py").write_text(
        f"import site\nsite.addsitedir({str(site_folder)!r})\n"
        + CHECK.replace('sys.path.insert(0, ".")\n', "")
    )
    scratch = ScratchChecks(
        shlex.join([sys.executable, "-B", "tests/check.py"]),
        root=workspace,
        documents=DiskDocuments(),
        timeout=30,
        parent=tmp_path / "scratch",
    )
    try:
        report = await scratch.check([edit(workspace, FIXED)])
    finally:
        await scratch.close()
    assert report.passed, report.output


def test_a_folder_that_would_shadow_the_standard_library_is_not_put_first(
    tmp_path: Path,
) -> None:
    source = tmp_path / "ws"
    (source / "src" / "pkg").mkdir(parents=True)
    (source / "src" / "pkg" / "__init__.py").write_text("")
    (source / "test").mkdir()  # no __init__.py: it shadows nothing
    copy = ScratchCopy(source, parent=tmp_path / "scratch")
    try:
        copy.populate()
        assert copy.import_paths() == (str(copy.path), str(copy.path / "src"))
        (copy.path / "random.py").write_text("")  # `import random` would find this one
        assert copy.import_paths() == (str(copy.path / "src"),)
    finally:
        copy.remove()


async def test_output_names_the_workspace_not_the_copy(workspace: Path, tmp_path: Path) -> None:
    (workspace / "check.py").write_text("import os\nprint(os.getcwd())\nraise SystemExit(1)\n")
    scratch = checks(workspace, tmp_path)
    try:
        report = await scratch.check([])
    finally:
        await scratch.close()
    assert report.output.strip().endswith(str(workspace))
    assert report.failures is None


async def test_close_removes_the_copy_also_after_a_cancel_mid_check(
    workspace: Path, tmp_path: Path
) -> None:
    (workspace / "check.py").write_text(
        "import time\nopen('started', 'w').close()\ntime.sleep(60)\n"
    )
    scratch = checks(workspace, tmp_path)
    task = asyncio.ensure_future(scratch.check([edit(workspace, FIXED)]))
    for _ in range(500):
        if scratch.copy is not None and (scratch.copy.path / "started").exists():
            break
        await asyncio.sleep(0.02)
    assert scratch.copy is not None
    made = scratch.copy.path
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await scratch.close()
    assert not made.exists()
    assert list((tmp_path / "scratch").iterdir()) == []
    # The killed check's pipes are closed by the garbage collector: let it run while the loop
    # still does, not in a later test.
    gc.collect()
    await asyncio.sleep(0)


@pytest.mark.parametrize(
    ("output", "exit_code", "count"),
    [
        ("....\n4 passed in 0.1s", 0, 0),
        ("FAILED t.py::a\n2 failed, 3 passed, 1 error in 0.2s", 1, 3),
        ("E  1 failed earlier\n=== 1 failed, 1 passed in 0.1s ===", 1, 1),
        ("Ran 3 tests\nFAILED (failures=2, errors=1)", 1, 3),
        ("2 errors in 0.30 seconds", 2, 2),  # before pytest 5
        ("3 passed in 0.1s\nFAIL Required test coverage of 90% not reached.", 1, None),
        ("1 failed, 1 passed, 3 subtests passed in 1.14s", 1, 1),  # pytest 9 -q
        ("Ran 3 tests\nFAILED (failures=1, expected failures=2)", 1, 1),
        ("!!! Interrupted: 1 error during collection !!!\n1 error in 0.2s", 2, None),
        ("calc.py:1:1: F401 `os` imported but unused\nFound 1 error.", 1, None),  # ruff
        ("calc.py:3: error: Missing return\nFound 3 errors in 1 file (checked 2 files)", 1, None),
        ("Traceback (most recent call last):\nNameError: x", 1, None),
        ("", None, None),
    ],
)
def test_failures_are_counted_from_the_summary_line(
    output: str, exit_code: int | None, count: int | None
) -> None:
    assert count_failures(output, exit_code) == count


async def test_a_run_checks_candidates_reports_them_and_leaves_no_copy(
    workspace: Path, tmp_path: Path
) -> None:
    def block(body: str) -> str:
        return f"```python\ndef add(a, b):\n    return {body}\n```"

    model = ScriptedModel.of(answer(block("a * b")), answer(block("a + b")))
    tools = WorkspaceTools(workspace, Sandbox.for_workspace([workspace]), DiskDocuments())
    scratch = checks(workspace, tmp_path)
    reviewer = RecordingReviewer()
    driver = RunDriver(
        loop=AgentLoop(model, tools, LoopConfig(candidates=4, first_turn="code")),
        reviewer=reviewer,
        meta=RunMeta(
            provider="ollama",
            model="scripted",
            base_url="http://127.0.0.1:1",
            task="Fix add.",
            document_uri=(workspace / "calc.py").as_uri(),
            document_path=str(workspace / "calc.py"),
            workspace_root=str(workspace),
        ),
        receipt_store=ReceiptStore(tmp_path / "state"),
        verifier=ShellVerifier(scratch.command, cwd=workspace, timeout=30),
        candidates=scratch,
    )

    result = await driver.start("run-1")

    [shown] = reviewer.seen
    assert isinstance(shown, PreparedEdit) and shown.checked == "passed"
    assert (workspace / "calc.py").read_text() == FIXED  # the accepted one, and only it
    assert (result.outcome, result.verified) == ("completed", True)
    assert result.candidates is not None
    assert result.candidates.model_dump(by_alias=True) == {"tried": 2, "checksRun": 2, "passed": 1}
    assert result.receipt is not None
    assert stored_result(result.receipt)["candidates"] == {"tried": 2, "checksRun": 2, "passed": 1}
    assert scratch.copy is None and list((tmp_path / "scratch").iterdir()) == []


async def test_a_change_outside_the_workspace_is_never_checked(
    workspace: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_text("x = 1\n")
    scratch = checks(workspace, tmp_path)
    with pytest.raises(ScratchError, match="outside"):
        await scratch.check([edit(tmp_path, "x = 2\n", "elsewhere.py")])
    await scratch.close()
    assert elsewhere.read_text() == "x = 1\n"


def _pytest_checks(workspace: Path, tmp_path: Path, documents: DiskDocuments) -> ScratchChecks:
    (workspace / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
        "def test_zero():\n    assert add(0, 0) == 0\n"
    )
    command = shlex.join(
        [sys.executable, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_calc.py"]
    )
    return ScratchChecks(
        command, root=workspace, documents=documents, timeout=30, parent=tmp_path / "scratch"
    )


def test_the_spectrum_is_recorded_in_the_copy_on_the_buffers_text(
    workspace: Path, tmp_path: Path
) -> None:
    # The editor holds a version of calc.py with the bug in a helper: the recording runs that.
    helper = "def _sub(a, b):\n    return a - b\n\n\ndef add(a, b):\n    return _sub(a, b)\n"
    scratch = _pytest_checks(workspace, tmp_path, Buffers({workspace / "calc.py": helper}))
    before = sorted(workspace.rglob("*"))

    async def go() -> list[str]:
        try:
            spectrum = await scratch.spectrum()
            return [f"{s.path}:{s.line}:{s.passed}" for s in spectrum.suspects]
        finally:
            await scratch.close()

    # test_zero passes through both functions, so the test itself ranks first.
    assert asyncio.run(go()) == ["test_calc.py:4:0", "calc.py:5:1", "calc.py:1:1"]
    assert sorted(workspace.rglob("*")) == before  # the workspace is untouched
    assert not (tmp_path / "scratch").exists() or not any((tmp_path / "scratch").iterdir())


def test_no_spectrum_when_the_copy_cannot_be_made(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = _pytest_checks(workspace, tmp_path, DiskDocuments())

    def refuse(self: object) -> int:
        raise ScratchError("no room for the copy")

    monkeypatch.setattr("rune_lsp.runner.scratch.ScratchCopy.populate", refuse)

    async def go() -> object:
        try:
            return await scratch.spectrum()
        finally:
            await scratch.close()

    assert asyncio.run(go()) == NO_SPECTRUM
