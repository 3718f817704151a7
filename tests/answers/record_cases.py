"""Writes tests/answers/cases/<case>/ from the recorded real answers in the repository: the
coding models' recordings (tests/providers/fixtures/qwen-*/) and the loop's recorded answers
(tests/loop/fixtures/*.txt). Each case holds the file the model was shown (`before/`), its
answer verbatim (`answer.md`), and what reading it gives today (`after/`, `case.json`); the
expectations are then reviewed by hand (`why`) before they are committed.

    .venv/bin/python -m tests.answers.record_cases
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from rune_lsp.answers import ROWS, Answer, read_turn
from tests.live.recordings import coder_dirs, fold, load_manifest
from tests.live.workspace import APP_PY

CASES = Path(__file__).parent / "cases"
LOOP_FIXTURES = Path(__file__).parents[1] / "loop" / "fixtures"
TOOLS = ("read_file", "list_dir", "search", "edit_file", "write_file", "run_command")
_NUMBERED = re.compile(r"^\s*\d+ \| ?(.*)$")


def shown_file(task: str) -> tuple[str, str]:
    """The file a recorded request showed: its path and text (numbered or fenced)."""
    path = next(line[6:].strip() for line in task.split("\n") if line.startswith("File: "))
    lines = task.split("\n")
    numbered = [m[1] for line in lines if (m := _NUMBERED.match(line))]
    if numbered:
        return path, "\n".join(numbered) + "\n"
    start = next(i for i, line in enumerate(lines) if line.startswith("```"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    return path, "\n".join(lines[start + 1 : end]) + "\n"


async def reading_of(answer: str, target: str, source: str) -> dict[str, object]:
    async def fetch(path: str) -> str | None:
        return source if path == target else None

    tools = await read_turn(
        ROWS["tools"], Answer(answer), offered=TOOLS, target=target, fetch=fetch
    )
    code = await read_turn(
        ROWS["code_first"], Answer(answer), offered=TOOLS, target=target, fetch=fetch
    )
    reading = code.code
    after = source
    expect = "nothing"
    if reading is not None and reading.edits:
        expect = "placed"
        for edit in reading.edits:
            after = after.replace(edit.old_text, edit.new_text, 1)
    elif reading is not None and reading.unchanged:
        expect = "unchanged"
    elif reading is not None and reading.refusal:
        expect = "refused"
    calls = [{"name": c.name, "arguments": c.arguments} for c in tools.written]
    return {"expect": expect, "after": after, "calls": calls}


def write(name: str, source_of: str, target: str, text: str, answer: str) -> None:
    found = asyncio.run(reading_of(answer, target, text))
    folder = CASES / name
    (folder / "before").mkdir(parents=True, exist_ok=True)
    (folder / "after").mkdir(parents=True, exist_ok=True)
    (folder / "before" / target).write_text(text)
    (folder / "after" / target).write_text(str(found["after"]))
    (folder / "answer.md").write_text(answer)
    case = {"target": target, "source": source_of, "expect": found["expect"], "why": ""}
    if found["calls"]:
        case["calls"] = found["calls"]
    (folder / "case.json").write_text(json.dumps(case, indent=2) + "\n")


def main() -> None:
    for directory in coder_dirs():
        for recording in load_manifest(directory).recordings:
            task = next(m["content"] for m in recording.request["messages"] if m["role"] == "user")
            target, text = shown_file(task)
            source = f"tests/providers/fixtures/{directory.name}/{recording.file}"
            answer = fold(recording, directory).text
            write(f"recorded-{directory.name}-{recording.name}", source, target, text, answer)
    for fixture in sorted(LOOP_FIXTURES.glob("*.txt")):
        source = f"tests/loop/fixtures/{fixture.name}"
        write(f"recorded-loop-{fixture.stem}", source, "app.py", APP_PY, fixture.read_text())


if __name__ == "__main__":
    main()
