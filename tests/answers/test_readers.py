"""Every case under tests/answers/cases/ through the one entry point (`read_turn`), so each
reader hears each answer: on a `tools` turn (native calls, calls written as text, code blocks)
and on a `code_first` turn (code blocks only). The code reader must place the blocks exactly
(each edit's old text occurs once in its file, and the files become `after/` byte for byte),
refuse with a reason, find them unchanged, or find nothing (tests/answers/cases.py).

`python -m tests.answers.record_cases` writes the cases of the recorded real answers kept in
tests/providers/fixtures and tests/loop/fixtures.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rune_lsp.answers import ROWS, Answer, TurnReading, read_turn
from tests.answers.cases import CASES, Case, all_cases

TOOLS = ("read_file", "list_dir", "search", "edit_file", "write_file", "run_command")
ALL = all_cases()


async def read(case: Case, kind: str) -> TurnReading[object]:
    async def fetch(path: str) -> str | None:
        return case.before.get(path)

    answer: Answer[object] = Answer(case.answer)
    return await read_turn(
        ROWS["tools" if kind == "tools" else "code_first"],
        answer,
        offered=TOOLS,
        target=case.spec.target,
        fetch=fetch,
        shown=case.spec.shown,
    )


def applied(reading: TurnReading[object], before: dict[str, str]) -> dict[str, str]:
    """The files after the reading's edits, as `edit_file` makes them (an exact, unique match)."""
    files = dict(before)
    for edit in reading.edits:
        current = files[edit.path]
        assert current.count(edit.old_text) == 1, f"old_text not unique in {edit.path}: {edit}"
        files[edit.path] = current.replace(edit.old_text, edit.new_text, 1)
    return files


def check_code(case: Case, reading: TurnReading[object]) -> None:
    code, expect = reading.code, case.spec.expect
    why = f"{case.name}: {case.spec.why}"
    if expect == "placed":
        assert code is not None and code.edits and code.refusal is None, why
        assert applied(reading, case.before) == {**case.before, **case.after}, why
        assert [edit.layout_only for edit in code.edits] == [case.spec.layout_only] * len(
            code.edits
        ), why
        return
    assert not reading.edits, why
    if expect == "refused":
        assert code is not None and code.refusal is not None, why
        for word in case.spec.mentions:
            assert word in code.refusal, why
    elif expect == "unchanged":
        assert code is not None and code.unchanged and code.refusal is None, why
        if case.spec.unchanged is not None:
            assert code.unchanged == case.spec.unchanged, why
    else:
        assert code is None or (code.refusal is None and not code.unchanged), why


@pytest.mark.parametrize("case", ALL, ids=[case.name for case in ALL])
async def test_the_code_first_turn_reads_only_code(case: Case) -> None:
    reading = await read(case, "code_first")

    assert reading.native == () and reading.written == ()  # no call reader on this turn
    check_code(case, reading)


@pytest.mark.parametrize("case", ALL, ids=[case.name for case in ALL])
async def test_a_tools_turn_reads_calls_written_as_text_first(case: Case) -> None:
    reading = await read(case, "tools")

    expected = tuple((c.name, c.arguments) for c in case.spec.calls or ())
    assert tuple((c.name, c.arguments) for c in reading.written) == expected, case.spec.why
    if expected:
        assert reading.code is None and reading.edits == ()
    else:  # no call: the code reader decides, as on the code-first turn
        check_code(case, reading)


def test_every_recorded_answer_is_a_case() -> None:
    names = {case.name for case in ALL}
    recorded = Path(__file__).parents[1] / "providers" / "fixtures"
    for manifest in recorded.glob("qwen-*/manifest.json"):
        for recording in json.loads(manifest.read_text())["recordings"]:
            assert f"recorded-{manifest.parent.name}-{recording['name']}" in names
    for fixture in (Path(__file__).parents[1] / "loop" / "fixtures").glob("*.txt"):
        assert f"recorded-loop-{fixture.stem}" in names


def test_the_cases_folder_holds_every_kind_of_case() -> None:
    assert {case.spec.expect for case in ALL} == {"placed", "refused", "unchanged", "nothing"}
    assert CASES.is_dir()
