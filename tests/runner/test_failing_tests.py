"""What a failing test uses (runner/failing_tests.py): the failing tests read off pytest's and
unittest's output, and the definitions they call followed through imports and re-exports, as
"go to definition" would, two calls deep."""

from __future__ import annotations

from pathlib import Path

import pytest

from rune_lsp.loop.task import FixTarget
from rune_lsp.runner.assembly import compose_task, with_check_output
from rune_lsp.runner.context import related_files
from rune_lsp.runner.failing_tests import (
    CALL_DEPTH,
    WHOLE_CLASS_LINES,
    failing_spans,
    failing_test_names,
    focus_lines,
    used_definitions,
)
from rune_lsp.tools.documents import DiskDocuments
from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.sandbox import Sandbox

PYTEST_SUMMARY = (
    "tests/test_size.py:9: AssertionError\n"
    "=========================== short test summary info ============================\n"
    "FAILED tests/test_size.py::test_size[1-1 B] - AssertionError: assert '1.0B' == '1 B'\n"
    "FAILED tests/test_size.py::TestUnits::test_units - TypeError\n"
    "FAILED tests/test_other.py::test_elsewhere - AssertionError\n"
    "ERROR tests/test_size.py::test_setup_broke\n"
)
UNITTEST_REPORT = (
    "FAIL: test_half (tests.test_api.T.test_half)\n"
    "----------------------------------------------------------------------\n"
    "ERROR: test_zero (tests.test_api.T.test_zero)\n"
)


def test_the_failing_tests_of_the_target_are_read_off_pytest_and_unittest() -> None:
    assert failing_test_names(PYTEST_SUMMARY, "tests/test_size.py") == [
        "test_size",
        "test_units",
        "test_setup_broke",
    ]
    assert failing_test_names(UNITTEST_REPORT, "tests/test_api.py") == ["test_half", "test_zero"]
    assert failing_test_names("3 passed in 0.1s\n", "tests/test_size.py") == []


#: A package whose `__init__` re-exports from two modules, and a test that calls one of them.
REEXPORTS = {
    "pkg/__init__.py": "from pkg.size import natural\nfrom pkg.lists import join\n",
    "pkg/size.py": "def natural(n):\n    return f'{n}B'\n",
    "pkg/lists.py": "def join(items):\n    return ', '.join(items)\n",
}
NATURAL_TEST = "import pkg\n\n\ndef test_natural():\n    assert pkg.natural(1) == '1 B'\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = (tmp_path / "ws").resolve()
    for folder in ("pkg", "tests"):
        (root / folder).mkdir(parents=True)
    return root


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def _used(root: Path, test: str, tests: list[str], lines: tuple[int, ...] = ()) -> list[str]:
    target = root / "tests" / "test_x.py"
    target.write_text(test, encoding="utf-8")
    found = used_definitions(test, target, root, tests, _read, lines)
    # "natural, used by test_natural" reads as "natural<-test_natural".
    shown = (f"{d.path.relative_to(root).as_posix()}:{d.why}" for d in found)
    return [line.replace(", used by ", "<-") for line in shown]


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def test_a_name_a_package_reexports_is_followed_to_where_it_is_defined(root: Path) -> None:
    _write(root, REEXPORTS)
    test = NATURAL_TEST

    # Only what the failing test calls: not the package's __init__, not its sibling lists.py.
    assert _used(root, test, ["test_natural"]) == ["pkg/size.py:natural<-test_natural"]


def test_relative_reexports_and_submodules_resolve_too(root: Path) -> None:
    _write(
        root,
        {
            "pkg/__init__.py": "from ._impl import core\nfrom ._impl.core import ratio as rate\n",
            "pkg/_impl/__init__.py": "",
            "pkg/_impl/core.py": "def ratio(a, b):\n    return a / b\n\n\ndef other():\n    pass\n",
        },
    )
    test = (
        "from pkg import rate\nimport pkg._impl.core as c\n\n\n"
        "def test_rate():\n    assert rate(4, 2) == 2\n    assert c.other() is None\n"
    )

    assert _used(root, test, ["test_rate"]) == [
        "pkg/_impl/core.py:ratio<-test_rate",
        "pkg/_impl/core.py:other<-test_rate",
    ]


def test_what_the_called_code_calls_is_shown_one_level_further(root: Path) -> None:
    _write(
        root,
        {
            "pkg/api.py": "from pkg.core import ratio\n\n\ndef half(x):\n    return ratio(x, 2)\n",
            "pkg/core.py": (
                "from pkg.deep import norm\n\n\ndef ratio(a, b):\n    return norm(a) / b\n"
            ),
            "pkg/deep.py": "def norm(x):\n    return x\n",
        },
    )
    test = "from pkg.api import half\n\n\ndef test_half():\n    assert half(4) == 2\n"

    found = _used(root, test, ["test_half"])

    assert found == ["pkg/api.py:half<-test_half", "pkg/core.py:ratio<-half"]
    assert CALL_DEPTH == 2  # norm, a third call away, is not shown


def test_names_on_the_failing_line_come_first(root: Path) -> None:
    _write(root, {"pkg/m.py": "def setup():\n    pass\n\n\ndef compute():\n    return 1\n"})
    test = (
        "from pkg.m import compute, setup\n\n\n"
        "def test_compute():\n    setup()\n    assert compute() == 2\n"
    )

    assert _used(root, test, ["test_compute"], lines=(6,)) == [
        "pkg/m.py:compute<-test_compute",
        "pkg/m.py:setup<-test_compute",
    ]
    assert _used(root, test, ["test_compute"]) == [
        "pkg/m.py:setup<-test_compute",
        "pkg/m.py:compute<-test_compute",
    ]


def test_a_long_class_is_shown_as_its_head_init_and_the_methods_the_test_names(
    root: Path,
) -> None:
    filler = "".join(
        f"    def m{n}(self):\n        return {n}\n\n" for n in range(WHOLE_CLASS_LINES)
    )
    cache = (
        "from typing import overload\n\n\nclass Cache:\n    size = 0\n\n"
        "    def __init__(self):\n        self.data = {}\n\n"
        f"{filler}"
        "    @overload\n    def get(self, key: int) -> int: ...\n\n"
        "    def get(self, key):\n        return self.data[key]\n"
    )
    _write(root, {"pkg/cache.py": cache})
    test = "from pkg.cache import Cache\n\n\ndef test_get():\n    assert Cache().get(1) == 1\n"

    target = root / "tests" / "test_x.py"
    target.write_text(test, encoding="utf-8")
    found = used_definitions(test, target, root, ["test_get"], _read)

    assert [d.name for d in found] == ["Cache", "Cache.__init__", "Cache.get"]
    head, _, get = found
    assert (head.first, head.last) == (4, 6)
    assert cache.splitlines()[get.first - 1] == "    def get(self, key):"  # not the stub


def test_helpers_in_the_test_folder_come_after_the_code_under_test(root: Path) -> None:
    _write(
        root,
        {
            "tests/__init__.py": "class Counted:\n    pass\n",
            "pkg/m.py": "def run(lock):\n    return 1\n",
        },
    )
    test = (
        "from tests import Counted\nfrom pkg.m import run\n\n\n"
        "def test_run():\n    assert run(Counted()) == 2\n"
    )

    assert _used(root, test, ["test_run"]) == [
        "pkg/m.py:run<-test_run",
        "tests/__init__.py:Counted<-test_run",
    ]


def test_nothing_when_no_failing_test_is_in_the_file_or_it_does_not_parse(root: Path) -> None:
    _write(root, {"pkg/m.py": "def run():\n    return 1\n"})
    test = "from pkg.m import run\n\n\ndef test_run():\n    assert run() == 2\n"
    assert _used(root, test, ["test_elsewhere"]) == []
    assert _used(root, "def test_run(:\n", ["test_run"]) == []


def test_a_file_the_rules_refuse_is_not_followed(root: Path) -> None:
    _write(root, {"pkg/secret.py": "def key():\n    return 1\n"})
    test = "from pkg.secret import key\n\n\ndef test_key():\n    assert key() == 2\n"
    target = root / "tests" / "test_x.py"
    found = used_definitions(test, target, root, ["test_key"], lambda path: None)
    assert found == []


def test_the_files_shown_beside_a_failing_test_are_what_it_uses(root: Path) -> None:
    _write(root, REEXPORTS)
    test = NATURAL_TEST
    target = root / "tests" / "test_x.py"
    target.write_text(test, encoding="utf-8")
    tools = WorkspaceTools(root, Sandbox.for_workspace([root]), DiskDocuments())
    output = "tests/test_x.py:5: AssertionError\nFAILED tests/test_x.py::test_natural - assert\n"

    blind = related_files(tools, target, test, None)
    checked = related_files(tools, target, test, output)

    assert [r.path for r in blind] == ["pkg/__init__.py", "pkg/size.py", "pkg/lists.py"]
    assert [(r.path, r.why) for r in checked] == [("pkg/size.py", "natural, used by test_natural")]


def _long_class(extra: str) -> str:
    method = "    def m{0}(self):\n        return {0}\n\n"
    filler = "".join(method.format(n) for n in range(WHOLE_CLASS_LINES))
    return f"class LRU:\n    def __init__(self):\n        self.data = {{}}\n\n{filler}{extra}"


def test_operators_name_the_special_methods_of_a_long_class_and_self_calls_are_followed(
    root: Path,
) -> None:
    # tinydb 4.8.2: `cache["a"] = 2` calls __setitem__, which calls self.set, where the bug was.
    extra = (
        "    def __setitem__(self, key, value):\n        self.set(key, value)\n\n"
        "    def set(self, key, value):\n        self.data.setdefault(key, value)\n\n"
        "    def __len__(self):\n        return len(self.data)\n"
    )
    _write(root, {"pkg/lru.py": _long_class(extra)})
    test = (
        "from pkg.lru import LRU\n\n\n"
        "def test_update():\n    cache = LRU()\n    cache['a'] = 1\n    assert len(cache) == 1\n"
    )

    assert _used(root, test, ["test_update"]) == [
        "pkg/lru.py:LRU<-test_update",
        "pkg/lru.py:LRU.__init__<-test_update",
        "pkg/lru.py:LRU.__setitem__<-test_update",
        "pkg/lru.py:LRU.__len__<-test_update",
        "pkg/lru.py:LRU.set<-LRU.__setitem__",
    ]


def test_a_long_test_file_is_focused_on_its_head_and_failing_tests() -> None:
    head = "import pytest\n\nfrom pkg.m import run\n\n\n"
    passing = "".join(f"def test_ok{n}():\n    assert run() == 1\n\n\n" for n in range(40))
    failing = "@pytest.mark.parametrize('x', [1, 2])\ndef test_run(x):\n    assert run() == x\n"
    text = head + passing + failing
    first_def = head.count("\n") + 1
    decorator = text.splitlines().index("@pytest.mark.parametrize('x', [1, 2])") + 1

    assert focus_lines(text, ["test_run"]) == ((1, first_def - 1), (decorator, decorator + 2))
    assert focus_lines(text, ["test_elsewhere"]) == ()
    assert focus_lines("def test_run(:\n", ["test_run"]) == ()


def test_the_task_after_a_failing_check_shows_a_long_test_file_at_its_failing_test(
    root: Path,
) -> None:
    # No module of the workspace is shown beside it (`pkg` is installed code, say), so the run
    # stays on the test (runner/context.module_under_test).
    passing = "".join(f"def test_ok{n}():\n    assert run() == 1\n\n\n" for n in range(300))
    test = f"from pkg.m import run\n\n\n{passing}def test_run():\n    assert run() == 2\n"
    target = root / "tests" / "test_x.py"
    target.write_text(test, encoding="utf-8")
    tools = WorkspaceTools(root, Sandbox.for_workspace([root]), DiskDocuments())
    task = compose_task(tools, FixTarget(path=target))
    output = "tests/test_x.py:1204: AssertionError\nFAILED tests/test_x.py::test_run - assert\n"

    blind, checked = task.prompt(), with_check_output(tools, target, task, output, failed=True).task

    assert "def test_run():" not in blind  # beyond the first 6,000 characters
    assert "Excerpt (lines 1-3 of 1205):\n```\nfrom pkg.m import run\n" in checked
    assert (
        "Excerpt (lines 1204-1205 of 1205):\n```\ndef test_run():\n    assert run() == 2\n```"
        in checked
    )
    assert "def test_ok299" not in checked


def test_the_failing_tests_are_found_with_their_decorators_in_file_order() -> None:
    text = (
        "import pytest\n\n\nclass TestRun:\n    def test_b(self):\n        assert 0\n\n\n"
        "@pytest.mark.parametrize('x', [1])\ndef test_a(x):\n    assert x == 2\n"
    )

    assert failing_spans(text, ["test_a", "test_b"]) == ((5, 6), (9, 11))
    assert failing_spans(text, ["test_c"]) == ()
    assert failing_spans("def test_a(:\n", ["test_a"]) == ()
