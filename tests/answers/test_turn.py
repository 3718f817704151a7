"""`answers.read_turn`: the readers a row lists, in order, the first that finds something
deciding (answers/turn.py)."""

from __future__ import annotations

from rune_lsp.answers import ROWS, Answer, read_turn
from rune_lsp.answers.code.reading import CodeReading
from rune_lsp.answers.table import turn_kind

APP = "def add(a, b):\n    return a - b\n"
BLOCK = "Fixed:\n```python\ndef add(a, b):\n    return a + b\n```"
WRITTEN = '<tool_call>{"name": "read_file", "arguments": {"path": "app.py"}}</tool_call>'
TOOLS = ("read_file", "edit_file")


class Files:
    """The `fetch` port over a dict, counting what was asked."""

    def __init__(self, **files: str) -> None:
        self.files = {name.replace("_", "."): text for name, text in files.items()}
        self.asked: list[str] = []

    async def __call__(self, path: str) -> str | None:
        self.asked.append(path)
        return self.files.get(path)


async def test_a_native_call_wins_and_nothing_else_is_read() -> None:
    files = Files(app_py=APP)
    answer = Answer(text=f"{WRITTEN}\n{BLOCK}", native=("native-call",))

    reading = await read_turn(ROWS["tools"], answer, offered=TOOLS, target="app.py", fetch=files)

    assert reading.native == ("native-call",) and reading.written == ()
    assert reading.code is None and files.asked == []


async def test_a_call_written_as_text_comes_before_code_blocks() -> None:
    files = Files(app_py=APP)
    answer: Answer[str] = Answer(text=f"{WRITTEN}\n{BLOCK}")

    reading = await read_turn(ROWS["tools"], answer, offered=TOOLS, target="app.py", fetch=files)

    assert [c.name for c in reading.written] == ["read_file"]
    assert reading.edits == () and files.asked == []
    assert WRITTEN not in reading.visible


async def test_the_code_first_row_reads_only_code_blocks() -> None:
    files = Files(app_py=APP)
    answer: Answer[str] = Answer(text=f"{WRITTEN}\n{BLOCK}")

    reading = await read_turn(
        ROWS["code_first"], answer, offered=TOOLS, target="app.py", fetch=files
    )

    assert reading.written == ()
    [edit] = reading.edits
    assert edit.path == "app.py"
    assert APP.replace(edit.old_text, edit.new_text) == APP.replace("a - b", "a + b")


async def test_a_turn_without_a_block_reads_as_an_empty_code_reading_without_a_fetch() -> None:
    files = Files(app_py=APP)
    answer: Answer[str] = Answer(text="The sign is wrong.")

    reading = await read_turn(
        ROWS["code_first"], answer, offered=TOOLS, target="app.py", fetch=files
    )

    assert reading.code == CodeReading() and files.asked == []


async def test_an_unreadable_target_or_a_cut_answer_proposes_nothing() -> None:
    unreadable = await read_turn(
        ROWS["tools"], Answer[str](BLOCK), offered=TOOLS, target="app.py", fetch=Files()
    )
    cut = await read_turn(
        ROWS["tools"],
        Answer[str](BLOCK, blocks_readable=False),
        offered=TOOLS,
        target="app.py",
        fetch=Files(app_py=APP),
    )

    assert unreadable.code is None and not unreadable.has_calls
    assert cut.code is None and cut.visible == BLOCK


async def test_the_synthesis_row_reads_nothing() -> None:
    answer = Answer(text=f"{WRITTEN}\n{BLOCK}", native=("native-call",))

    reading = await read_turn(
        ROWS["synthesis"], answer, offered=TOOLS, target="app.py", fetch=Files(app_py=APP)
    )

    assert not reading.has_calls and reading.code is None and reading.visible == answer.text


def test_only_a_fix_s_first_turn_with_code_first_is_code_first() -> None:
    assert turn_kind("code", first=True, fixes_a_file=True) == "code_first"
    assert turn_kind("code", first=False, fixes_a_file=True) == "tools"
    assert turn_kind("code", first=True, fixes_a_file=False) == "tools"
    assert turn_kind("tools", first=True, fixes_a_file=True) == "tools"
