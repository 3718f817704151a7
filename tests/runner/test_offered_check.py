"""The check rune offers when none is configured: the narrowest test file, only where a test
runner is configured (issue 26, point 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rune_lsp.runner.offered_check import OFFER_ID, offered_check
from rune_lsp.settings import Settings

MODULE = "def add(a, b):\n    return a - b\n"
TEST = "from pkg.x import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = (tmp_path / "ws").resolve()
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "x.py").write_text(MODULE, encoding="utf-8")
    return root


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _command(root: Path, target: str, settings: Settings | None = None) -> str | None:
    offer = offered_check(settings or Settings(), root, root / target)
    return offer.command if offer is not None else None


@pytest.mark.parametrize(
    ("config", "text", "said"),
    [
        ("pyproject.toml", "[tool.pytest.ini_options]\naddopts = '-q'\n", "pyproject.toml"),
        ("pytest.ini", "[pytest]\n", "pytest.ini"),
        ("setup.cfg", "[metadata]\nname = x\n\n[tool:pytest]\ntestpaths = t\n", "setup.cfg"),
        ("tox.ini", "[tox]\n\n[pytest]\naddopts = -q\n", "tox.ini"),
    ],
)
def test_a_test_file_is_offered_where_pytest_is_configured(
    root: Path, config: str, text: str, said: str
) -> None:
    _write(root / config, text)
    _write(root / "t" / "test_x.py", TEST)

    offer = offered_check(Settings(), root, root / "t" / "test_x.py")

    assert offer is not None
    assert offer.command.endswith(" -m pytest -q t/test_x.py")
    assert offer.cwd == root
    assert offer.reason == f"t/test_x.py is a test file; pytest is configured in {said}"


def test_a_tests_folder_is_enough(root: Path) -> None:
    _write(root / "tests" / "test_x.py", TEST)

    offer = offered_check(Settings(), root, root / "tests" / "test_x.py")

    assert offer is not None
    assert offer.reason.endswith("tests/ holds test_*.py files")


def test_code_gets_the_test_file_that_imports_it(root: Path) -> None:
    _write(root / "tests" / "test_other.py", "def test_nothing():\n    pass\n")
    _write(root / "tests" / "test_sum.py", TEST)  # imports pkg.x, though not named after it

    offer = offered_check(Settings(), root, root / "pkg" / "x.py")

    assert offer is not None
    assert offer.command.endswith(" -m pytest -q tests/test_sum.py")
    assert offer.reason.startswith("tests/test_sum.py tests pkg/x.py; ")


def test_nothing_is_offered_without_a_configured_runner(root: Path) -> None:
    _write(root / "pyproject.toml", "[project]\nname = 'x'\n")
    _write(root / "test_x.py", TEST)  # a test file, but nothing says how tests run here

    assert _command(root, "test_x.py") is None
    assert _command(root, "pkg/x.py") is None


def test_nothing_is_offered_for_code_no_test_imports(root: Path) -> None:
    _write(root / "tests" / "test_other.py", "def test_nothing():\n    pass\n")

    assert _command(root, "pkg/x.py") is None


def test_a_configured_check_or_offer_check_off_offers_nothing(root: Path) -> None:
    _write(root / "tests" / "test_x.py", TEST)

    assert _command(root, "tests/test_x.py", Settings(check_command="make test")) is None
    assert _command(root, "tests/test_x.py", Settings(offer_check=False)) is None


def test_the_workspace_virtualenv_runs_the_tests(root: Path) -> None:
    _write(root / "tests" / "test_x.py", TEST)
    _write(root / ".venv" / "bin" / "python", "#!/bin/sh\n")

    assert _command(root, "tests/test_x.py") == ".venv/bin/python -m pytest -q tests/test_x.py"


def test_a_path_with_a_space_is_quoted(root: Path) -> None:
    _write(root / "tests" / "my tests" / "test_x.py", TEST)
    _write(root / "pytest.ini", "[pytest]\n")

    command = _command(root, "tests/my tests/test_x.py")

    assert command is not None and command.endswith("-m pytest -q 'tests/my tests/test_x.py'")


def test_the_approval_names_the_command_and_why(root: Path) -> None:
    _write(root / "tests" / "test_x.py", TEST)
    offer = offered_check(Settings(), root, root / "tests" / "test_x.py")
    assert offer is not None

    asked = offer.as_command()

    assert (asked.edit_id, asked.command, asked.cwd) == (OFFER_ID, offer.command, str(root))
    assert asked.reason.startswith("rune offers a check for this run (tests/test_x.py is a test")
    assert offer.accepted(Settings()).check_command == offer.command


@pytest.mark.parametrize(
    ("target", "command"),
    [
        ("src/add.test.js", "npm test -- src/add.test.js"),
        ("src/add.js", "npm test -- src/add.test.js"),
        ("src/other.js", None),
    ],
)
def test_npm_offers_its_test_script_on_a_test_file(
    root: Path, target: str, command: str | None
) -> None:
    _write(root / "package.json", json.dumps({"scripts": {"test": "jest"}}))
    _write(root / "src" / "add.js", "module.exports = (a, b) => a - b;\n")
    _write(root / "src" / "other.js", "module.exports = 1;\n")
    _write(root / "src" / "add.test.js", "test('add', () => {});\n")

    assert _command(root, target) == command


def test_npm_init_placeholder_is_no_test_script(root: Path) -> None:
    placeholder = 'echo "Error: no test specified" && exit 1'
    _write(root / "package.json", json.dumps({"scripts": {"test": placeholder}}))
    _write(root / "src" / "add.test.js", "test('add', () => {});\n")

    assert _command(root, "src/add.test.js") is None


def test_a_broken_manifest_offers_nothing(root: Path) -> None:
    _write(root / "package.json", "{not json")
    _write(root / "pyproject.toml", "[tool.pytest.ini_options\n")
    _write(root / "src" / "add.test.js", "test('add', () => {});\n")
    _write(root / "t" / "test_x.py", TEST)

    assert _command(root, "src/add.test.js") is None
    assert _command(root, "t/test_x.py") is None
