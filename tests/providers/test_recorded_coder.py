"""Real coding models' answers to rune's first request, recorded once, replayed here.

The bytes under fixtures/qwen-*/ came from llama.cpp's server and Qwen2.5-Coder-Instruct (0.5B,
1.5B) answering each fix case of tests/live/coder_cases.py natively (tools in the request),
with no tools, and in the text protocol (`python -m tests.live.record_fixtures --coder NAME`
records them again). The provider must read each answer exactly as the plain reading of the
same bytes does, and what the manifest says an answer holds (a call written as text, a code
block) must be there for the protocol's parsers to work on.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import httpx
import pytest

from rune_lsp.loop.messages import Message, ModelTurn, Usage
from rune_lsp.providers.openai import OpenAIModel
from rune_lsp.settings import Settings
from rune_lsp.tools.catalog import TOOLS
from tests.live.record_fixtures import CODER_MAX_PREDICT
from tests.live.recordings import Recording, coder_dirs, fold, load_manifest, shown

ASK = [Message(role="user", content="replayed")]
TOOL_PROPERTIES = {tool.spec.name: set(tool.spec.parameters["properties"]) for tool in TOOLS}
SHAPES = {"native", "plain", "text"}
_CALL_START = re.compile(r'\{\s*"name"\s*:')
_PYTHON_BLOCK = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\n(.*?)```", re.S)

RECORDED = [
    (directory, recording)
    for directory in coder_dirs()
    for recording in load_manifest(directory).recordings
]


def by_name(items: list[tuple[Path, Recording]]) -> list[object]:
    return [pytest.param(d, r, id=f"{d.name}-{r.name}") for d, r in items]


def holding(what: str) -> list[object]:
    return by_name([(d, r) for d, r in RECORDED if what in r.expect])


async def replay(directory: Path, recording: Recording) -> ModelTurn:
    def handle(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": recording.content_type}
        return httpx.Response(recording.status, content=recording.body(directory), headers=headers)

    settings = Settings(provider="openai", base_url="http://127.0.0.1:9/v1", model=directory.name)
    async with httpx.AsyncClient(transport=httpx.MockTransport(handle)) as client:
        return await OpenAIModel(settings, client=client, stream=True).chat(ASK, [])


def test_both_models_were_recorded_in_every_shape() -> None:
    assert {d.name for d in coder_dirs()} == {"qwen-0.5b", "qwen-1.5b"}
    for directory in coder_dirs():
        recordings = load_manifest(directory).recordings
        # The seeds' scenario in every shape; the 1.5B's recording on a loaded machine was cut
        # short, so not every other task has all three.
        assert {r.shape for r in recordings if r.task == "app_add"} == SHAPES
        assert {r.shape for r in recordings} == SHAPES
        assert all(r.stream and r.status == 200 for r in recordings)


@pytest.mark.parametrize(("directory", "recording"), by_name(RECORDED))
async def test_the_turn_is_what_the_model_sent(directory: Path, recording: Recording) -> None:
    expected = fold(recording, directory)

    turn = await replay(directory, recording)

    if turn.cut is not None and turn.cut.reason == "repetition":
        # The stream repeats itself: the provider stops reading early, so the turn holds the
        # head of what the model sent (providers/stream_limits.py).
        assert turn.text and expected.text.startswith(turn.text)
        assert len(turn.text) < len(expected.text)
        return
    assert turn.text == expected.text
    assert [(c.name, c.arguments) for c in turn.tool_calls] == list(expected.calls)
    assert turn.finish_reason == expected.finish_reason
    # The whole prompt, and its part llama-server reused from its prompt cache (`cache_n`).
    assert turn.usage == Usage(
        prompt_tokens=expected.prompt_tokens,
        completion_tokens=expected.completion_tokens,
        cached_tokens=expected.cached_tokens,
    )
    assert shown(expected) == recording.expect


#: Calls written as text that are not JSON: the 1.5B put a docstring's `"""` unescaped inside
#: a JSON string. A parser must refuse these (and say so), not guess.
MALFORMED = {("qwen-1.5b", "app_add_text")}


@pytest.mark.parametrize(("directory", "recording"), holding("written_call"))
def test_a_call_written_as_text_is_a_whole_json_call(directory: Path, recording: Recording) -> None:
    text = fold(recording, directory).text
    start = _CALL_START.search(text)
    assert start is not None
    if (directory.name, recording.name) in MALFORMED:
        with pytest.raises(json.JSONDecodeError):
            json.JSONDecoder().raw_decode(text, start.start())
        return

    call, _ = json.JSONDecoder().raw_decode(text, start.start())

    assert isinstance(call["name"], str) and isinstance(call["arguments"], dict)
    # The arguments are always one of rune's tools'; the name not always: the 0.5B sometimes
    # names the function it fixes (`{"name": "median", "arguments": {"path", "old_text", ...}}`).
    assert any(set(call["arguments"]) <= properties for properties in TOOL_PROPERTIES.values())


@pytest.mark.parametrize(("directory", "recording"), holding("code_block"))
def test_a_code_block_is_python_that_parses(directory: Path, recording: Recording) -> None:
    blocks = _PYTHON_BLOCK.findall(fold(recording, directory).text)

    parsed = [block for block in blocks if _parses(block)]

    assert parsed, blocks
    assert any(("def " in block or "return" in block) for block in parsed)


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


@pytest.mark.parametrize(("directory", "recording"), holding("length"))
async def test_an_answer_cut_at_the_cap_is_still_a_turn(
    directory: Path, recording: Recording
) -> None:
    turn = await replay(directory, recording)

    # Cut either way: by the server at its output cap, or earlier by the repetition cut when
    # what ran on to the cap was the model repeating itself.
    assert turn.cut is not None and turn.cut.reason in ("length", "repetition")
    if turn.cut.reason == "length":
        assert turn.finish_reason == "length"
        assert turn.usage.completion_tokens == CODER_MAX_PREDICT
