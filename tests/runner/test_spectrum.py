"""runner/spectrum.py: the check's pytest run again with a recorder, and its functions ranked
by how strongly running them goes with failing (Ochiai). The recordings are real pytest runs
in a temporary workspace, on this interpreter and, where one is installed, on another."""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from rune_lsp.runner import spectrum as spectrum_module
from rune_lsp.runner.spectrum import (
    NO_SPECTRUM,
    PLUGIN,
    Spectrum,
    Suspect,
    ranked,
    record,
    recorded_words,
    recording_command,
    suspect_definitions,
)

PYTEST = [sys.executable, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:asyncio"]

#: A registry the tests reach only at run time: `run("shout", ...)` calls `shout` through a
#: dict, which no reading of the test's names follows.
COMMANDS = """\
from pkg import words


def run(name, text):
    return HANDLERS[name](text)


HANDLERS = {"shout": words.shout, "whisper": words.whisper}
"""
WORDS = """\
def shout(text):
    return text.upper() + "!"


def whisper(text):
    def quiet(part):
        return part.lower()

    return " ".join(quiet(p) for p in text.split()) + "..."  # the bug: should keep one space


class Echo:
    @staticmethod
    def twice(text):
        return text + text
"""
TESTS = """\
from pkg.commands import run
from pkg.words import Echo


def test_shout():
    assert run("shout", "hi") == "HI!"


def test_whisper():
    assert run("whisper", "A  B") == "a  b..."


def test_echo():
    assert Echo.twice("a") == "aa"
"""


@pytest.fixture(autouse=True)
def _unhurried(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recording's own bound, raised: a loaded machine must not turn these into
    time-outs (the time-out has its own test)."""
    monkeypatch.setattr(spectrum_module, "TIMEOUT", 300.0)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = (tmp_path / "ws").resolve()
    for name, text in {
        "pkg/__init__.py": "",
        "pkg/commands.py": COMMANDS,
        "pkg/words.py": WORDS,
        "tests/test_words.py": TESTS,
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def _recording(command: str) -> str:
    words = recorded_words(command)
    assert words is not None
    return recording_command(words, RECORDER)


def _record(root: Path, command: list[str], timeout: float = 300.0) -> Spectrum:
    return asyncio.run(record(shlex.join(command), root, timeout))


# The command the recording runs.

RECORDER = "/tmp/recorder"


def test_the_checks_test_ids_are_widened_to_their_files_and_the_recorder_is_added() -> None:
    command = "python -m pytest -q tests/test_a.py::test_x tests/test_a.py::T::test_y tests/b.py"

    assert _recording(command) == (f"python -m pytest -q tests/test_a.py tests/b.py -p {PLUGIN}")


def test_a_parametrized_id_and_a_quoted_expression_are_no_shell_syntax() -> None:
    command = "pytest 'tests/test_a.py::test_x[1-(2)]' -k 'a and (b or c)'"

    assert _recording(command) == (f"pytest tests/test_a.py -k 'a and (b or c)' -p {PLUGIN}")


@pytest.mark.parametrize(
    ("command", "recorded"),
    [
        # Repeated options and their values are the user's: never merged.
        (
            "pytest -p no:cacheprovider -p no:asyncio t.py::a",
            "pytest -p no:cacheprovider -p no:asyncio t.py",
        ),
        ("pytest . --rootdir . t.py::a", "pytest . --rootdir . t.py"),
        # A deselected id stays an id; a warning filter is no test id.
        (
            "pytest tests/a.py --deselect tests/a.py::t",
            "pytest tests/a.py --deselect tests/a.py::t",
        ),
        (
            "pytest -W error::DeprecationWarning tests/a.py::t",
            "pytest -W error::DeprecationWarning tests/a.py",
        ),
        # The recorder comes first on a path the command sets itself.
        (
            "PYTHONPATH=src pytest tests/a.py::t",
            f"PYTHONPATH={RECORDER}{os.pathsep}src pytest tests/a.py",
        ),
        ("env X=PYTHONPATH=y pytest t.py", "env X=PYTHONPATH=y pytest t.py"),
    ],
)
def test_only_test_ids_are_widened(command: str, recorded: str) -> None:
    assert _recording(command) == f"{recorded} -p {PLUGIN}"


@pytest.mark.parametrize(
    "command",
    [
        "make test",  # no pytest: nothing is recorded
        "python -m unittest tests.test_x",
        "cd sub && pytest tests",  # the shell's: not rewritten
        "pytest tests | tee log",
        "pytest tests>log",
        "pytest $TESTS",
        "pytest `cat tests.txt`",
        "pytest 'unbalanced",
    ],
)
def test_a_check_that_is_no_plain_pytest_command_is_not_recorded(command: str) -> None:
    assert recorded_words(command) is None


# The ranking.


def test_what_only_the_failing_tests_ran_ranks_first_and_ties_keep_the_order_run() -> None:
    spectrum = ranked(
        [
            (True, [("a.py", 1), ("b.py", 1), ("c.py", 1)]),
            (False, [("a.py", 1)]),
            (True, [("c.py", 1), ("b.py", 1)]),
        ]
    )

    assert (spectrum.failed, spectrum.passed) == (2, 1)
    assert [(s.path, s.failed, s.passed) for s in spectrum.suspects] == [
        ("b.py", 2, 0),
        ("c.py", 2, 0),
        ("a.py", 1, 1),
    ]
    assert spectrum.suspects[0].score == pytest.approx(1.0)
    assert spectrum.suspects[2].score == pytest.approx(1 / 2)  # 1 / sqrt(2 * (1 + 1))


def test_no_failing_test_is_no_spectrum() -> None:
    assert ranked([(False, [("a.py", 1)])]) == NO_SPECTRUM
    assert ranked([]) == NO_SPECTRUM


# Recording a real pytest run.


#: Where this interpreter's pytest is installed: pure Python, so another interpreter can import
#: it from there (with the plugins of this venv, which may be compiled for this one, not
#: loaded by themselves).
_OUR_PYTEST = str(Path(pytest.__file__).resolve().parent.parent)


def _interpreters(minor: int) -> list[str]:
    """Installed Pythons 3.`minor`: on the PATH, and pyenv's own (its shims refuse to run a
    version that is not selected)."""
    found = [shutil.which(f"python3.{minor}")]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found += [str(p) for p in sorted(pyenv.glob(f"3.{minor}.*/bin/python3.{minor}"))]
    return [path for path in found if path is not None]


def _other_interpreter() -> tuple[str, list[str]] | None:
    """An installed Python of another minor version, newest first, that imports pytest, its
    own or this one's (then with the folder to put on `PYTHONPATH`): the recorder runs in the
    user's interpreter, not rune-lsp's, and from 3.12 on through `sys.monitoring`."""
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    for minor in (13, 12, 8):
        if minor == sys.version_info[1]:
            continue
        for found in _interpreters(minor):
            for paths in ([], [_OUR_PYTEST]):
                probe = subprocess.run(
                    [found, "-c", "import pytest"],
                    capture_output=True,
                    check=False,
                    env={**env, "PYTHONPATH": os.pathsep.join(paths)},
                )
                if probe.returncode == 0:
                    return found, paths
    return None


@pytest.fixture(params=["this", "another"])
def interpreter(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Interpreter:
    """The pytest command of this interpreter, then of another (from 3.12 on, the recorder
    goes through `sys.monitoring` instead of `sys.setprofile`), skipped where none is found."""
    if request.param == "this":
        return Interpreter(PYTEST, [])
    other = _other_interpreter()
    if other is None:
        pytest.skip("no Python 3.13, 3.12 or 3.8 that imports pytest on this machine")
    python, paths = other
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return Interpreter([python, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider"], paths)


@dataclass(frozen=True)
class Interpreter:
    pytest: list[str]  # the command that runs its pytest
    paths: list[str]  # what the recording puts on `PYTHONPATH` after the recorder

    def record(self, root: Path, arguments: list[str]) -> Spectrum:
        command = shlex.join([*self.pytest, *arguments])
        return asyncio.run(record(command, root, 300.0, import_paths=self.paths))


def test_a_function_reached_only_at_run_time_is_the_first_suspect(
    workspace: Path, interpreter: Interpreter
) -> None:
    # In the user's interpreter, whichever it is: a function reported once per test, each test.
    spectrum = interpreter.record(workspace, ["tests/test_words.py::test_whisper"])

    # The ids were widened: the two passing tests tell the functions apart.
    assert (spectrum.failed, spectrum.passed) == (1, 2)
    found = suspect_definitions(spectrum, workspace, _read, 2)
    assert [(d.path.name, d.name, d.first, d.last) for d in found] == [
        ("words.py", "whisper", 5, 9),  # its closure `quiet` is shown as the function it is in
        ("commands.py", "run", 4, 5),
    ]
    assert found[0].why == "whisper, run by the failing test and by no passing test"
    assert found[1].why == "run, run by the failing test and by 1 of the 2 passing tests"


def test_the_recording_leaves_nothing_behind(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    before = sorted(p.relative_to(workspace) for p in workspace.rglob("*"))

    command = shlex.join([*PYTEST, "tests/test_words.py"])
    spectrum = asyncio.run(record(command, workspace, 300.0, temporary))

    assert spectrum.failed == 1
    assert sorted(p.relative_to(workspace) for p in workspace.rglob("*")) == before
    assert list(temporary.iterdir()) == []


def test_a_recording_that_runs_out_of_time_is_no_spectrum(workspace: Path) -> None:
    (workspace / "tests" / "test_slow.py").write_text(
        "import time\n\n\ndef test_slow():\n    time.sleep(30)\n    assert False\n",
        encoding="utf-8",
    )

    assert _record(workspace, [*PYTEST, "tests/test_slow.py"], timeout=1.0) == NO_SPECTRUM


def test_a_cancelled_recording_leaves_nothing_behind(workspace: Path, tmp_path: Path) -> None:
    (workspace / "tests" / "test_slow.py").write_text(
        "import time\n\n\ndef test_slow():\n    time.sleep(30)\n    assert False\n",
        encoding="utf-8",
    )
    parent = tmp_path / "scratch"
    command = shlex.join([*PYTEST, "tests/test_slow.py"])

    async def cancelled() -> None:
        recording = asyncio.ensure_future(record(command, workspace, 60.0, parent))
        for _ in range(400):  # until the recorder's folder is made (the disk says so)
            if parent.exists() and any(parent.iterdir()):
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        recording.cancel()
        with pytest.raises(asyncio.CancelledError):
            await recording
        await asyncio.sleep(0.2)  # the killed pytest is reaped before the loop closes

    asyncio.run(asyncio.wait_for(cancelled(), 30))

    assert list(parent.iterdir()) == []


def test_a_recording_that_cannot_start_is_no_spectrum(workspace: Path) -> None:
    command = ["/nonexistent/python", "-m", "pytest", "tests/test_words.py"]

    assert _record(workspace, command) == NO_SPECTRUM


def test_skipped_and_expected_failures_say_nothing_about_the_code(workspace: Path) -> None:
    (workspace / "tests" / "test_more.py").write_text(
        "import pytest\n"
        "from pkg.words import shout, whisper\n\n\n"
        "@pytest.mark.xfail(reason='known')\n"
        "def test_known():\n    assert whisper('A  B') == 'x'\n\n\n"
        "@pytest.mark.skip(reason='later')\n"
        "def test_later():\n    shout('a')\n\n\n"
        "def test_loud():\n    assert shout('a') == 'A!'\n\n\n"
        "@pytest.fixture\n"
        "def broken():\n    raise RuntimeError\n\n\n"
        "def test_broken_setup(broken):\n    pass\n",
        encoding="utf-8",
    )

    spectrum = _record(workspace, [*PYTEST, "tests/test_more.py"])

    # test_broken_setup failed (in its setup), test_loud passed; xfail and skip are left out.
    assert (spectrum.failed, spectrum.passed) == (1, 1)


def test_a_check_that_is_no_pytest_command_makes_no_folder(workspace: Path, tmp_path: Path) -> None:
    parent = tmp_path / "scratch"

    found = asyncio.run(record("make test", workspace, 60.0, parent))

    assert found == NO_SPECTRUM
    assert not parent.exists()  # decided before anything was made


def test_a_recorder_that_cannot_be_put_in_place_is_no_spectrum(
    workspace: Path, tmp_path: Path
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")  # a file where the recorder's folder would go

    found = asyncio.run(record(shlex.join([*PYTEST, "tests"]), workspace, 60.0, blocked))

    assert found == NO_SPECTRUM


def test_a_recording_larger_than_its_bound_is_no_spectrum(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spectrum_module, "MAX_BYTES", 10)

    assert _record(workspace, [*PYTEST, "tests/test_words.py"]) == NO_SPECTRUM


def test_each_xdist_worker_s_recording_is_read(workspace: Path) -> None:
    pytest.importorskip("xdist", reason="pytest-xdist is not installed")

    spectrum = _record(workspace, [*PYTEST, "-p", "xdist", "-n", "2", "tests/test_words.py"])

    assert (spectrum.failed, spectrum.passed) == (1, 2)


def test_a_run_where_every_test_passes_is_no_spectrum(workspace: Path) -> None:
    (workspace / "tests" / "test_ok.py").write_text(TESTS.split("def test_whisper")[0])

    assert _record(workspace, [*PYTEST, "tests/test_ok.py::test_shout"]) == NO_SPECTRUM


# Which definitions are shown.


def test_what_only_pytest_s_report_of_a_failure_runs_is_no_suspect(
    workspace: Path, interpreter: Interpreter
) -> None:
    # pytest explains a failed `assert a == b` with repr(a) and repr(b): a `__repr__` (and what
    # it calls) runs only in failing tests, and outranked click's bug (release_multi 19_click).
    (workspace / "pkg" / "box.py").write_text(
        "def _label(value):\n"
        "    return f'Box({value})'\n"
        "\n"
        "\n"
        "class Box:\n"
        "    def __init__(self, value):\n"
        "        self.value = value\n"
        "\n"
        "    def __eq__(self, other):\n"
        "        return self.value == other.value + 1  # the bug\n"
        "\n"
        "    def __repr__(self):\n"
        "        return _label(self.value)\n",
        encoding="utf-8",
    )
    (workspace / "tests" / "test_box.py").write_text(
        "from pkg.box import Box\n"
        "\n"
        "\n"
        "def test_equal():\n"
        "    assert Box(1) == Box(1)\n"
        "\n"
        "\n"
        "def test_unequal():\n"
        "    assert Box(2) != Box(1)\n"
        "\n"
        "\n"
        "def test_shown():\n"
        "    assert repr(Box(3)) == 'Box(3)'\n",
        encoding="utf-8",
    )

    spectrum = interpreter.record(workspace, ["tests/test_box.py"])

    assert (spectrum.failed, spectrum.passed) == (2, 1)
    found = [d.name for d in suspect_definitions(spectrum, workspace, _read, 4)]
    # `__repr__` and `_label` ran as the test's own calls in the passing test alone.
    assert found[0] == "Box.__eq__"
    assert "Box.__repr__" not in found and "_label" not in found


def test_test_code_is_never_a_suspect(workspace: Path) -> None:
    spectrum = Spectrum(
        1,
        0,
        (
            Suspect("tests/test_words.py", 9, 1.0, 1, 0),
            Suspect("conftest.py", 1, 1.0, 1, 0),
            Suspect("pkg/words.py", 13, 1.0, 1, 0),
        ),
    )
    (workspace / "conftest.py").write_text("def fixture():\n    pass\n", encoding="utf-8")

    found = suspect_definitions(spectrum, workspace, _read, 4)

    # A method is named with its class, and shown from its decorator.
    assert [(d.name, d.first) for d in found] == [("Echo.twice", 13)]


def test_a_definition_under_an_if_or_a_try_is_found(workspace: Path) -> None:
    (workspace / "pkg" / "compat.py").write_text(
        "import sys\n"
        "if sys.version_info >= (3,):\n"
        "    def text(x):\n        return str(x)\n"
        "try:\n    import missing\n"
        "except ImportError:\n"
        "    class Missing:\n        def ok(self):\n            return 1\n",
        encoding="utf-8",
    )
    spectrum = Spectrum(
        1, 0, (Suspect("pkg/compat.py", 3, 1.0, 1, 0), Suspect("pkg/compat.py", 9, 1.0, 1, 0))
    )

    found = suspect_definitions(spectrum, workspace, _read, 4)

    assert [(d.name, d.first, d.last) for d in found] == [("text", 3, 4), ("Missing.ok", 9, 10)]


def test_an_unreadable_file_and_a_line_in_no_function_are_skipped(workspace: Path) -> None:
    spectrum = Spectrum(
        2,
        0,
        (
            Suspect("pkg/gone.py", 1, 1.0, 2, 0),
            Suspect("pkg/commands.py", 8, 1.0, 2, 0),  # the module's table
            Suspect("pkg/words.py", 1, 0.5, 1, 0),
        ),
    )

    found = suspect_definitions(spectrum, workspace, _read, 4)

    assert [(d.name, d.why) for d in found] == [
        ("shout", "shout, run by 1 of the 2 failing tests and by no passing test")
    ]
