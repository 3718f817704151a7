"""shown_owner: a Python block whose file defines none of its definitions is the code of the one
other file the run showed the model that defines them all; otherwise it stays its file's."""

from __future__ import annotations

from rune_lsp.answers.code.owner import shown_owner

REPORT = "from pkg.words import words\n\n\ndef summary(text):\n    return len(words(text))\n"
WORDS = (
    "def words(text):\n    return text.split(' ')\n\n\n"
    "class Counter:\n    def add(self, w):\n        pass\n"
)
FILES = {"pkg/report.py": REPORT, "pkg/words.py": WORDS}
SHOWN = ("pkg/report.py", "pkg/words.py")
FIX = ["def words(text):", "    return text.split()"]


def test_a_function_only_a_file_shown_beside_defines_is_that_files() -> None:
    assert shown_owner(FIX, "pkg/report.py", FILES, SHOWN) == "pkg/words.py"


def test_a_method_sent_alone_goes_to_the_file_whose_class_has_it() -> None:
    method = ["def add(self, w):", "    return w"]
    assert shown_owner(method, "pkg/report.py", FILES, SHOWN) == "pkg/words.py"


def test_a_named_file_the_caller_could_not_read_defines_nothing() -> None:
    assert shown_owner(FIX, "report.py", FILES, SHOWN) == "pkg/words.py"


def test_a_block_that_changes_a_definition_of_its_own_file_stays_there() -> None:
    # summary is report.py's, and a new helper beside it is its own code too
    block = ["def words(text):", "    return []", "", "", "def summary(text):", "    return 0"]
    assert shown_owner(block, "pkg/report.py", FILES, SHOWN) is None


def test_a_block_no_shown_file_defines_whole_stays_its_files() -> None:
    block = [*FIX, "", "", "def lines(text):", "    return text.splitlines()"]
    assert shown_owner(block, "pkg/report.py", FILES, SHOWN) is None


def test_two_shown_files_that_define_it_are_no_owner() -> None:
    files = {**FILES, "pkg/split.py": "def words(text):\n    return []\n"}
    assert shown_owner(FIX, "pkg/report.py", files, (*SHOWN, "pkg/split.py")) is None


def test_files_not_shown_or_not_read_are_not_looked_at() -> None:
    assert shown_owner(FIX, "pkg/report.py", FILES, ()) is None
    assert shown_owner(FIX, "pkg/report.py", FILES, ("pkg/report.py",)) is None
    assert shown_owner(FIX, "pkg/report.py", {"pkg/report.py": REPORT}, SHOWN) is None


def test_blocks_that_define_nothing_or_are_no_python_stay_their_files() -> None:
    assert shown_owner(["    return text.split()"], "pkg/report.py", FILES, SHOWN) is None
    assert shown_owner(["def words(:"], "pkg/report.py", FILES, SHOWN) is None
    js = {"web/a.js": "function a() {}\n", "web/b.js": "function words() {}\n"}
    assert shown_owner(["function words() {}"], "web/a.js", js, ("web/b.js",)) is None
