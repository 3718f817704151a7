"""Tool calls written as text, the ways model families print them, read back as calls.

The one parser for both protocols: the text protocol asks for `<tool_call>{…}</tool_call>`, and
models given native tools often print their calls instead (small Qwen models do so in most
turns). Recognised, in order of precedence:

- `<tool_call>{"name": …, "arguments": {…}}</tool_call>` (Qwen, Hermes), also unclosed at the end
  and also holding the `<function=…>` form (Qwen3-Coder);
- `<function=NAME>{…}</function>` (Llama 3.1) and `<function=NAME><parameter=KEY>VALUE</parameter>…`
  (Qwen3-Coder);
- `[TOOL_CALLS]NAME[ARGS]{…}` (Mistral);
- a fenced block (```` ``` ```` or `~~~`, any language tag; `answers.code.fences` finds them)
  holding only call objects, and bare JSON call objects or
  arrays of them in the prose (Llama's `{"name": …, "parameters": …}`, Mistral's
  `[TOOL_CALLS] [{…}]`, OpenAI's `{"type": "function", "function": {…}}`).

A tagged call is always a call, whatever its name or however broken its JSON: the model meant
one, and its result tells it what to repair. Broken JSON is never repaired by guessing (a
docstring's triple quotes copied unescaped into a string, say): the call's result says it is
no valid JSON, and the model writes it again. Untagged JSON is a call only when it names a tool
the model was offered (`offered`) and has `arguments` or `parameters`; anything else stays text,
so a JSON example or a config file in an answer is never run.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from rune_lsp.answers.code.fences import fenced_blocks

_TAGGED = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_FUNCTION = re.compile(r"<function=([\w.\-]+)>(.*?)(?:</function>|\Z)", re.DOTALL)
_PARAMETER = re.compile(
    r"<parameter=([\w.\-]+)>(.*?)(?:</parameter>|(?=<parameter=)|(?=</function>)|\Z)", re.DOTALL
)
_MISTRAL = re.compile(r"\[TOOL_CALLS\]\s*([\w.\-]+)\s*\[ARGS\]\s*")
#: Where a bare call may start: an object naming a function, or an array of such objects.
_BARE = re.compile(r'\[\s*\{\s*"(?:name|function|type)"\s*:|\{\s*"(?:name|function|type)"\s*:')
_NAME = re.compile(r'"name"\s*:\s*"([^"\\]*)"')
#: Markers models print around calls; once the calls are taken out they are noise.
_MARKERS = re.compile(r"\[TOOL_CALLS\]|<\|python_tag\|>|<\|eom_id\|>")
_BLANK_RUNS = re.compile(r"\n{3,}")
#: Bare-JSON starts that may fail per turn: each failed try may scan to the end of a long,
#: broken answer. Starts that turn out to be calls cost only their own length.
MAX_BARE_ATTEMPTS = 64

_decoder = json.JSONDecoder()
_FENCE_MARKS = ("```", "~~~")
_CALL_START = re.compile(r'\s*\{\s*"name"\s*:\s*"([^"\\]*)"')


@dataclass(frozen=True)
class WrittenCall:
    """A call as the answer wrote it: `name` and `arguments` are whatever the text held (a
    broken one makes the call invalid when the loop normalises it, and its result says why)."""

    name: Any = ""
    arguments: Any = None


@dataclass(frozen=True)
class ParsedText:
    visible: str
    calls: tuple[WrittenCall, ...]


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    calls: tuple[WrittenCall, ...]


class _Spans:
    """Non-overlapping spans kept sorted by start, so each check is a bisection: a hostile
    answer may hold thousands of calls."""

    def __init__(self) -> None:
        self.items: list[_Span] = []
        self._starts: list[int] = []

    def add(self, start: int, end: int, calls: tuple[WrittenCall, ...]) -> bool:
        """Adds the span unless it overlaps one found before (earlier forms take precedence)."""
        at = bisect.bisect_left(self._starts, start)
        if at > 0 and self.items[at - 1].end > start:
            return False
        if at < len(self.items) and self.items[at].start < end:
            return False
        self.items.insert(at, _Span(start, end, calls))
        self._starts.insert(at, start)
        return True

    def covers(self, position: int) -> bool:
        at = bisect.bisect_right(self._starts, position)
        return at > 0 and self.items[at - 1].end > position


def parse_text_turn(text: str, offered: Collection[str] | None = None) -> ParsedText:
    """Calls in the order written, and the text around them. `offered` names the tools an
    untagged call may name (None: any name)."""
    spans = _Spans()
    for match in _TAGGED.finditer(text):
        spans.add(match.start(), match.end(), (_call_from_block(match.group(1)),))
    for match in _FUNCTION.finditer(text):
        spans.add(match.start(), match.end(), (_function_call(match[1], match[2]),))
    for match in _MISTRAL.finditer(text):
        _add_mistral(spans, text, match)
    for start, end, body in fence_spans(text):
        calls = _calls_in(body, offered)
        if calls:
            spans.add(start, end, calls)
    _add_bare(spans, text, offered)
    if not spans.items:
        return ParsedText(visible=text.strip(), calls=())
    return ParsedText(
        visible=_visible(text, spans.items),
        calls=tuple(call for span in spans.items for call in span.calls),
    )


# --- spans -------------------------------------------------------------------------------------


def _add_mistral(spans: _Spans, text: str, match: re.Match[str]) -> None:
    try:
        arguments, end = _decoder.raw_decode(text, match.end())
    except json.JSONDecodeError:
        return
    spans.add(match.start(), end, (WrittenCall(name=match[1], arguments=arguments),))


def _add_bare(spans: _Spans, text: str, offered: Collection[str] | None) -> None:
    misses = 0
    for match in _BARE.finditer(text):
        start = match.start()
        if spans.covers(start):
            continue
        try:
            value, end = _decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            value, end = None, start
        calls = _as_calls(value, offered)
        if calls:
            spans.add(start, end, calls)
            continue
        misses += 1
        if misses >= MAX_BARE_ATTEMPTS:
            return


def _visible(text: str, spans: list[_Span]) -> str:
    parts: list[str] = []
    position = 0
    for span in spans:
        parts.append(text[position : span.start])
        position = span.end
    parts.append(text[position:])
    visible = _MARKERS.sub("", "".join(parts))
    emptied = [(start, end) for start, end, body in fence_spans(visible) if not body.strip()]
    for start, end in reversed(emptied):  # a fence whose calls were taken out of it
        visible = visible[:start] + visible[end:]
    return _BLANK_RUNS.sub("\n\n", visible).strip()


def fence_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, body) of each closed fenced block of `text`, ``` or ~~~. What a fence is,
    is decided by the one fence parser (`answers.code.fences.fenced_blocks`); this only finds
    where each block it returned stands, in order, to cut it out of the visible text."""
    fences = fenced_blocks(text)
    if not fences:
        return
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    at = 0
    for fence in fences:
        size = len(fence.lines)
        while at + size + 1 < len(lines) and not _fence_at(lines, at, fence.lines):
            at += 1
        if at + size + 1 >= len(lines):
            return
        close = at + size + 1
        yield starts[at], starts[close] + len(lines[close]), "\n".join(fence.lines)
        at = close + 1


def _fence_at(lines: list[str], at: int, body: tuple[str, ...]) -> bool:
    """Whether the block `body` opens at line `at` (its lines as the parser returned them:
    right-stripped) and closes right after it."""
    if not lines[at].lstrip().startswith(_FENCE_MARKS):
        return False
    close = at + len(body) + 1
    if not lines[close].strip().startswith(_FENCE_MARKS):
        return False
    return all(lines[at + 1 + i].rstrip() == line for i, line in enumerate(body))


# --- call shapes -------------------------------------------------------------------------------


def _call_from_block(body: str) -> WrittenCall:
    """A tagged block is always a call; if its JSON is broken, the arguments say so."""
    body = body.strip()
    function = _FUNCTION.search(body)
    if function is not None and not body.startswith("{"):
        return _function_call(function[1], function[2])
    try:
        parsed = json.loads(body)
    except json.JSONDecodeError:
        name = _NAME.search(body)
        return WrittenCall(name=name.group(1) if name else "", arguments=body)
    call = _as_call(parsed, None, need_arguments=False)
    if call is None and isinstance(parsed, dict) and "name" in parsed:
        # The name as written, string or not: normalising pairs a bad one as invalid.
        return WrittenCall(name=parsed["name"], arguments=parsed.get("arguments"))
    return call if call is not None else WrittenCall(name="", arguments=body)


def _function_call(name: str, body: str) -> WrittenCall:
    """`<function=NAME>` with a JSON body, `<parameter=…>` pairs, or nothing."""
    body = body.strip()
    if body.startswith("{"):
        try:
            return WrittenCall(name=name, arguments=json.loads(body))
        except json.JSONDecodeError:
            return WrittenCall(name=name, arguments=body)
    parameters = {key: _parameter_value(value) for key, value in _PARAMETER.findall(body)}
    return WrittenCall(name=name, arguments=parameters if parameters or not body else body)


def _parameter_value(value: str) -> str:
    # The format puts each value on lines of its own: one break either side is layout.
    value = value.removeprefix("\r\n").removeprefix("\n")
    return value.removesuffix("\n").removesuffix("\r")


def _calls_in(body: str, offered: Collection[str] | None) -> tuple[WrittenCall, ...]:
    """The calls a fenced block holds, when it holds nothing but calls. A block that starts
    as a call of an offered tool but is no valid JSON is that call with its
    text as arguments: the model meant a call, and its result says what to fix."""
    body = body.strip()
    calls = _json_calls(body, offered)
    if calls or _starts_with_json(body):
        return calls  # valid JSON that is not all calls: the bare scan may still find some
    start = _CALL_START.match(body)
    meant = start is not None and (offered is None or start[1] in offered)
    if start is None or not meant or ('"arguments"' not in body and '"parameters"' not in body):
        return ()
    try:
        return _as_calls(json.loads(body), offered)
    except json.JSONDecodeError:
        return (WrittenCall(name=start[1], arguments=body),)


def _starts_with_json(body: str) -> bool:
    try:
        _decoder.raw_decode(body)
    except json.JSONDecodeError:
        return False
    return True


def _json_calls(body: str, offered: Collection[str] | None) -> tuple[WrittenCall, ...]:
    """Calls from a sequence of JSON values that are all calls (one per line, say)."""
    calls: list[WrittenCall] = []
    position = 0
    while position < len(body):
        try:
            value, position = _decoder.raw_decode(body, position)
        except json.JSONDecodeError:
            return ()
        found = _as_calls(value, offered)
        if not found:
            return ()
        calls.extend(found)
        while position < len(body) and body[position] in " \t\r\n,":
            position += 1
    return tuple(calls)


def _as_calls(value: Any, offered: Collection[str] | None) -> tuple[WrittenCall, ...]:
    """A call object, or an array of nothing but call objects, as calls; else ()."""
    items = value if isinstance(value, list) else [value]
    calls = [_as_call(item, offered) for item in items]
    if not calls or any(call is None for call in calls):
        return ()
    return tuple(call for call in calls if call is not None)


def _as_call(
    value: Any, offered: Collection[str] | None, *, need_arguments: bool = True
) -> WrittenCall | None:
    if not isinstance(value, dict):
        return None
    function = value.get("function")
    if isinstance(function, dict) and "name" in function:  # OpenAI's own shape, printed
        value = function
    name = value.get("name")
    if not isinstance(name, str) or (offered is not None and name not in offered):
        return None
    for key in ("arguments", "parameters"):
        if key in value:
            return WrittenCall(name=name, arguments=value[key])
    return None if need_arguments else WrittenCall(name=name, arguments=None)
