from __future__ import annotations

import pytest

from rune_lsp.loop.events import RunEvent

from .fakes import FakeExecutor


@pytest.fixture
def executor() -> FakeExecutor:
    return FakeExecutor()


@pytest.fixture
def events() -> list[RunEvent]:
    return []
