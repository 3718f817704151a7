"""Every recorded answer in tests/answers/cases/, through the one entry point (`read_turn`), so
each reader hears each answer: on a `tools` turn (native calls, calls written as text, code
blocks) and on a `code_first` turn (code blocks only).

A case is a folder: `case.json` (`target`, `source`, `expect`: placed / refused / unchanged /
nothing, `why`, optional `calls` written as text), `answer.md` verbatim, `before/` and `after/`
(the target before and after the placement). `python -m tests.answers.record_cases` writes the
recorded real answers' cases.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rune_lsp.answers import ROWS, Answer, TurnReading, read_turn

CASES = Path(__file__).parent / "cases"
TOOLS = ("read_file", "list_dir", "search", "edit_file", "write_file", "run_command")
EXPECTS = {"placed", "refused", "unchanged", "nothing"}
#: Placements the reader gets wrong on skel, each named in issue 24; answers/code (branch
#: reader-place) fixes them. Strict: once it does, the mark must go.
KNOWN_WRONG = {
    "recorded-loop-qwen2.5-coder-1.5b_prose_fix": "issue 24 item 8: two copies of def add",
}


@dataclass(frozen=True)
class Case:
    name: str
    target: str
    expect: str
    why: str
    calls: tuple[tuple[Any, Any], ...]
    answer: str
    before: str
    after: str

    @classmethod
    def load(cls, folder: Path) -> Case:
        spec = json.loads((folder / "case.json").read_text(encoding="utf-8"))
        target = spec["target"]
        return cls(
            name=folder.name,
            target=target,
            expect=spec["expect"],
            why=spec["why"],
            calls=tuple((c["name"], c["arguments"]) for c in spec.get("calls", ())),
            answer=(folder / "answer.md").read_text(encoding="utf-8"),
            before=(folder / "before" / target).read_text(encoding="utf-8"),
            after=(folder / "after" / target).read_text(encoding="utf-8"),
        )

    async def read(self, kind: str) -> TurnReading[object]:
        async def fetch(path: str) -> str | None:
            return self.before if path == self.target else None

        answer: Answer[object] = Answer(self.answer)
        return await read_turn(
            ROWS["tools" if kind == "tools" else "code_first"],
            answer,
            offered=TOOLS,
            target=self.target,
            fetch=fetch,
        )


def cases() -> list[object]:
    found = []
    for folder in sorted(p for p in CASES.iterdir() if (p / "case.json").is_file()):
        marks = []
        if folder.name in KNOWN_WRONG:
            marks.append(pytest.mark.xfail(reason=KNOWN_WRONG[folder.name], strict=True))
        found.append(pytest.param(folder, id=folder.name, marks=marks))
    return found


def test_every_recorded_answer_is_a_case() -> None:
    names = {p.name for p in CASES.iterdir()}
    recorded = Path(__file__).parents[1] / "providers" / "fixtures"
    for manifest in recorded.glob("qwen-*/manifest.json"):
        for recording in json.loads(manifest.read_text())["recordings"]:
            assert f"recorded-{manifest.parent.name}-{recording['name']}" in names
    for fixture in (Path(__file__).parents[1] / "loop" / "fixtures").glob("*.txt"):
        assert f"recorded-loop-{fixture.stem}" in names


def placed(before: str, reading: TurnReading[object], target: str) -> str:
    text = before
    for edit in reading.edits:
        assert edit.path == target and text.count(edit.old_text) == 1
        text = text.replace(edit.old_text, edit.new_text, 1)
    return text


def outcome(reading: TurnReading[object]) -> str:
    code = reading.code
    if code is None:
        return "nothing"
    if code.edits:
        return "placed"
    if code.unchanged:
        return "unchanged"
    return "refused" if code.refusal else "nothing"


@pytest.mark.parametrize("folder", cases())
async def test_the_code_reader_places_or_refuses_as_the_case_says(folder: Path) -> None:
    case = Case.load(folder)
    assert case.expect in EXPECTS and case.why

    reading = await case.read("code_first")

    assert reading.native == () and reading.written == ()  # no call reader on this turn
    assert outcome(reading) == case.expect, case.why
    assert placed(case.before, reading, case.target) == case.after, case.why


@pytest.mark.parametrize("folder", cases())
async def test_on_a_tools_turn_calls_written_as_text_come_first(folder: Path) -> None:
    case = Case.load(folder)

    reading = await case.read("tools")

    assert tuple((c.name, c.arguments) for c in reading.written) == case.calls, case.why
    if not case.calls:  # no call: the code reader decides, as on the code-first turn
        assert outcome(reading) == case.expect, case.why
        assert placed(case.before, reading, case.target) == case.after, case.why
    else:
        assert reading.code is None and reading.edits == ()
