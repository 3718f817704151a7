"""The model double and a project folder for the editor tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.doubles.model_double import ModelDouble
from tests.editors import scenario


@pytest.fixture
def double() -> Iterator[ModelDouble]:
    with ModelDouble() as running:
        scenario.script_fix(running)
        yield running


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The buggy file, inside a fresh project folder."""
    return scenario.make_workspace((tmp_path / "project").resolve())


@pytest.fixture
def hunks_double() -> Iterator[ModelDouble]:
    with ModelDouble() as running:
        scenario.script_hunks(running)
        yield running


@pytest.fixture
def hunks_project(tmp_path: Path) -> Path:
    """The file with three bugs, inside a fresh project folder."""
    return scenario.make_workspace((tmp_path / "project").resolve(), scenario.HUNKS_BUGGY)
