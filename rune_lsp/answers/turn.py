"""The one entry point that reads a model's turn: `read_turn`.

The table's row for the turn (`answers/table.py`) says which readers listen; each reads its own
answer format, in this order, and the first that finds something decides:

1. native calls (`Answer.native`, as the provider parsed them), when the run speaks native tools;
2. calls written as text (`calls/text.py`): the text protocol's, and those a model given native
   tools printed instead of making them;
3. code blocks (`answers/code`, `read_code`), on a turn that made no call: each needs the current
   text of its file, fetched through `fetch` (the loop's port: the editor's buffer first).

Reading code blocks is pure but may be slow on a large answer, so it runs in a worker thread:
the event loop stays free to answer a `$/cancelRequest` meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Generic, TypeVar

from rune_lsp.answers.calls.text import WrittenCall, parse_text_turn
from rune_lsp.answers.code.fences import answer_blocks
from rune_lsp.answers.code.reading import CodeReading, FileEdit, named_paths, read_code
from rune_lsp.answers.table import Row

#: A call as the provider parsed it (the loop's `RawToolCall`): passed through untouched.
N = TypeVar("N")
#: The current text of a file, as the model names it; None when it cannot be read.
Fetch = Callable[[str], Awaitable[str | None]]


@dataclass(frozen=True)
class Answer(Generic[N]):
    """One model turn as the readers see it."""

    text: str
    native: tuple[N, ...] = ()
    native_protocol: bool = True  # the run speaks native tools (else the text protocol)
    blocks_readable: bool = True  # False: cut mid-thought, its blocks are not meant as code


@dataclass(frozen=True)
class TurnReading(Generic[N]):
    """What a turn says: calls to dispatch, edits its code blocks propose, or neither (then
    `code` may say why a block was not taken, and `visible` is the final answer)."""

    visible: str  # the text with the calls written in it taken out
    native: tuple[N, ...] = ()
    written: tuple[WrittenCall, ...] = ()
    code: CodeReading | None = None  # None: not read for code (or its file is unreadable)

    @property
    def edits(self) -> tuple[FileEdit, ...]:
        return self.code.edits if self.code is not None else ()

    @property
    def has_calls(self) -> bool:
        return bool(self.native or self.written or self.edits)


async def read_turn(
    row: Row,
    answer: Answer[N],
    *,
    offered: Collection[str],
    target: str | None,
    fetch: Fetch,
    shown: tuple[str, ...] = (),
) -> TurnReading[N]:
    """Read `answer` with the readers `row` lists. `offered`: the tools an untagged call may
    name; `target`: the file a code block is code of (None: blocks are not read); `shown`:
    the other files the run showed the model, which a block may be code of instead
    (answers/code/owner.py)."""
    if row.listens("native") and answer.native_protocol and answer.native:
        return TurnReading(visible=answer.text, native=answer.native)
    visible, written = answer.text, tuple[WrittenCall, ...]()
    if row.listens("text_calls"):
        parsed = parse_text_turn(answer.text, offered)
        if parsed.calls or not answer.native_protocol:
            visible, written = parsed.visible, parsed.calls
    native = answer.native if row.listens("native") else ()
    if native or written:
        return TurnReading(visible=visible, native=native, written=written)
    if not row.listens("code") or target is None or not answer.blocks_readable:
        return TurnReading(visible=visible)
    return TurnReading(visible=visible, code=await _read_code(visible, target, fetch, shown))


async def _read_code(
    text: str, target: str, fetch: Fetch, shown: tuple[str, ...]
) -> CodeReading | None:
    """The blocks of `text` as edits of `target` and the files they name: an empty reading
    when there is no block, None when the target cannot be read (the answer then stands)."""
    if not await asyncio.to_thread(answer_blocks, text):  # a long line is slow to scan
        return CodeReading()
    current = await fetch(target)
    if current is None:
        return None
    files = {target: current}
    for path in dict.fromkeys((*named_paths(text, target), *shown)):
        text_of = await fetch(path) if path != target else None
        if text_of is not None:
            files[path] = text_of
    return await asyncio.to_thread(read_code, text, files, target, shown)
