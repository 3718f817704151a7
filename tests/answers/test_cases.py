"""Every case under tests/answers/cases/ read by the code-block reader: placed exactly (each
edit's old text occurs once in its file, and the files become `after/` byte for byte), refused
with a reason, unchanged, or nothing."""

from __future__ import annotations

import pytest

from rune_lsp.answers.code.reading import CodeReading, read_code
from tests.answers.cases import Case, all_cases

CASES = all_cases()


def applied(reading: CodeReading, before: dict[str, str]) -> dict[str, str]:
    """The files after the reading's edits, as `edit_file` makes them (an exact, unique match)."""
    files = dict(before)
    for edit in reading.edits:
        current = files[edit.path]
        assert current.count(edit.old_text) == 1, f"old_text not unique in {edit.path}: {edit}"
        files[edit.path] = current.replace(edit.old_text, edit.new_text)
    return files


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_code_reader_reads_the_case_as_expected(case: Case) -> None:
    reading = read_code(case.answer, case.before, case.spec.target)
    expect = case.spec.expect
    if expect == "placed":
        assert reading.edits, reading.refusal
        assert reading.refusal is None
        assert applied(reading, case.before) == {**case.before, **case.after}
    elif expect == "refused":
        assert not reading.edits, reading.edits
        assert reading.refusal is not None
        for word in case.spec.mentions:
            assert word in reading.refusal
    elif expect == "unchanged":
        assert reading == CodeReading(unchanged=True)
    else:
        assert reading == CodeReading()


def test_the_cases_folder_holds_every_kind_of_case() -> None:
    assert {case.spec.expect for case in CASES} == {"placed", "refused", "unchanged", "nothing"}
