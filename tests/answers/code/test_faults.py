"""added_fault: a fault the placement adds refuses it; the file's own faults do not."""

from __future__ import annotations

import pytest

from rune_lsp.answers.code.faults import added_fault
from rune_lsp.answers.code.spans import FileText, Replace

SOURCE = (
    "LIMIT = 3\n\n\ndef cap(x, bound=LIMIT):\n    middle = x // 2\n    return min(middle, bound)\n"
)


def fault(lo: int, hi: int, *lines: str, source: str = SOURCE, path: str = "cap.py") -> str | None:
    file = FileText.of(source)
    replaces = [Replace(lo, hi, lines)]
    return added_fault(file, replaces, FileText.of(file.spliced(replaces)), path)


def test_a_correct_fix_adds_no_fault() -> None:
    assert fault(5, 5, "    return max(middle, bound)") is None


@pytest.mark.parametrize(
    ("replace", "said"),
    [
        ((5, 5, "    return min(middle, bound"), "cap.py would not parse"),
        ((6, 5, "", "", "def clamp(self, x):", "    return x"), "clamp takes `self`"),
        ((0, 0, "LIMIT = BASE + 1", "BASE = 2"), "read `BASE` on import before"),
        ((4, 4), "leaves out the line `middle = x // 2`"),
        ((5, 5, "    return min(half, bound)"), "`cap` would read `half`, which cap.py defines"),
    ],
    ids=["syntax", "method at the top", "read before bound", "line left out", "bound nowhere"],
)
def test_each_fault_the_placement_adds_is_named(replace: tuple[object, ...], said: str) -> None:
    lo, hi, *lines = replace
    assert isinstance(lo, int) and isinstance(hi, int)
    reason = fault(lo, hi, *(str(line) for line in lines))
    assert reason is not None and said in reason


def test_a_fault_the_file_already_has_is_its_own_business() -> None:
    # `registry` is bound nowhere in the file before the fix as well (a plugin injects it).
    source = SOURCE + "\n\ndef hook():\n    return registry\n"
    assert fault(5, 5, "    return max(middle, bound)", source=source) is None
    assert fault(5, 5, "    return max(registry, bound)", source=source) is None


def test_a_stub_is_asked_only_whether_it_parses_and_keeps_its_methods_in() -> None:
    stub = "def cap(x: int) -> Limit: ...\n"
    assert fault(0, 0, "def cap(x: int) -> Bound: ...", source=stub, path="cap.pyi") is None
    broken = fault(0, 0, "def cap(x: int) -> Bound ...", source=stub, path="cap.pyi")
    assert broken is not None and "would not parse" in broken
