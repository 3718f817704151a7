"""Releases of a tiny made-up package, `tally`, as sdists: 1.0.0 with a bug in `tally/core.py`,
1.0.1 with the fix, a version bump in `tally/__init__.py` and a new test that pins the fix;
1.0.2 (NOISY) the same with two more hunks in the module around the fix. Written here for the
release-bugs builder's tests; no file of a real package is in this repo. The sdists go where
pypi_sdists.sdist looks for a download it already has, so nothing reaches the network."""

from __future__ import annotations

import tarfile
from pathlib import Path

CORE = '''"""Counting things."""
{head}

def count_even(numbers):
    return sum(1 for n in numbers if n % 2 == {rest})


def count_long(words, size):
    return sum(1 for w in words if len(w) > size)
{tail}'''
#: What the noisy release (NOISY) adds around the fix: two more hunks in the same module, so
#: the module is no fix of one or two hunks, and only the fix's hunk alone is.
NOISY_HEAD = """
SEPARATOR = ", "

"""
NOISY_TAIL = """

def count_odd(numbers):
    return sum(1 for n in numbers if n % 2)
"""

INIT = """from tally.core import count_even, count_long

__version__ = "{version}"
"""

HELPER = """NUMBERS = [1, 2, 3, 4, 6]
"""

OLD_TEST = """from tally import count_long


def test_count_long():
    assert count_long(["a", "abc"], 1) == 1
"""

NEW_TEST = """from tally import count_even, count_long

from tests.data import NUMBERS


def test_count_long():
    assert count_long(["a", "abc"], 1) == 1


def test_count_even():
    assert count_even(NUMBERS) == 3


def test_count_even_empty():
    assert count_even([]) == 0
"""

PACKAGE = "tally"
OLD, NEW = "1.0.0", "1.0.1"
NOISY = "1.0.2"  # the fix among other changes of the module: its hunk number 1
MODULE = "tally/core.py"
TEST = "tests/test_tally.py"


def write_release(root: Path, version: str, *, src: bool = False) -> Path:
    """The unpacked sdist of tally==version: the old one has the bug and the old tests."""
    top = root / f"tally-{version}"
    library = top / "src" if src else top
    fixed, noisy = version != OLD, version == NOISY
    core = CORE.format(
        rest=0 if fixed else 1,
        head=NOISY_HEAD if noisy else "",
        tail=NOISY_TAIL if noisy else "",
    )
    files = {
        library / "tally" / "__init__.py": INIT.format(version=version),
        library / "tally" / "core.py": core,
        library / "tally" / "tests" / "test_inside.py": "def test_nothing():\n    pass\n",
        top / "setup.py": "from setuptools import setup\n\nsetup()\n",
        top / "PKG-INFO": f"Metadata-Version: 2.1\nName: tally\nVersion: {version}\n",
        top / "tests" / "__init__.py": "",
        top / "tests" / "test_tally.py": NEW_TEST if fixed else OLD_TEST,
        top / "tests" / "data.py": HELPER,
        top / "tests" / "test_unrelated.py": "def test_other():\n    pass\n",
        top / "docs" / "conf.py": "project = 'tally'\n",
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return top


def cache_sdists(cache: Path, scratch: Path) -> None:
    """The releases as .tar.gz archives where pypi_sdists keeps what it downloaded."""
    for version in (OLD, NEW, NOISY):
        top = write_release(scratch / version, version)
        folder = cache / "sdists" / f"tally-{version}"
        folder.mkdir(parents=True)
        with tarfile.open(folder / f"tally-{version}.tar.gz", "w:gz") as archive:
            archive.add(top, arcname=top.name)
