"""The answer recorder's instruments, without a model: a recording must hold the model's text
exactly as it was sent, or every case made from it pins a text no model wrote."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from bench.effect.record_answers import RecordingProxy, Turn, load_programs, make_case, read_answer

# The counting proxy's own test server (llama-server's answer shape, with timings).
from tests.effect_bench.test_effect_instruments import STREAM, upstream  # noqa: F401

#: Pieces a streamed answer may be cut into, with what a careless reader would lose: a raw
#: U+2028 (servers need not escape it in JSON), a `\r\n`, a fence split across chunks.
PIECES = ("Fix:\n``", "`python\r\n    x = 1\u2028", "\n", "```\n")


def stream(pieces: tuple[str, ...]) -> bytes:
    chunks = [{"choices": [{"delta": {"content": piece}}]} for piece in pieces]
    chunks.append({"choices": [{"delta": {}, "finish_reason": "stop"}]})
    lines = [f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n" for chunk in chunks]
    return ("".join(lines) + "data: [DONE]\n\n").encode()


def test_a_streamed_answer_is_joined_byte_for_byte() -> None:
    turn = Turn(request={})
    read_answer(stream(PIECES), turn)
    assert turn.content == "".join(PIECES)
    assert turn.finish_reason == "stop"


def test_a_whole_json_answer_is_read_with_its_tool_calls() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "edit_file", "arguments": "{}"}}
    body = {"choices": [{"message": {"content": "ok", "tool_calls": [call]}, "finish_reason": "x"}]}
    turn = Turn(request={})
    read_answer(json.dumps(body).encode(), turn)
    assert (turn.content, turn.tool_calls, turn.finish_reason) == ("ok", [call], "x")


def test_the_proxy_passes_the_stream_on_and_keeps_the_request_text_and_timings(
    upstream: str,  # noqa: F811  (the fixture imported above)
) -> None:
    request = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with RecordingProxy(upstream) as proxy:
        answer = httpx.post(f"{proxy.base_url}/chat/completions", json=request, timeout=30)
        turns = proxy.take_turns()
        exchanges = proxy.take()
    assert answer.content == STREAM
    assert [(t.request, t.content, t.finish_reason) for t in turns] == [(request, "hi", "stop")]
    assert [(e.processed_tokens, e.completion_tokens) for e in exchanges] == [(120, 42)]


def test_every_recording_program_has_one_module_one_test_and_a_bug_found_once() -> None:
    programs = load_programs()
    assert len(programs) >= 10
    for program in programs:
        lines = program.source().count("\n")
        assert 40 <= lines <= 200, (program.name, lines)
        assert program.source().count(program.buggy) == 1, program.name
        assert (program.directory / program.test).is_file()
        assert Path(program.module).suffix == ".py"


def recorded_turn(root: Path, run: str) -> Path:
    turn = root / run / "turn2"
    turn.mkdir(parents=True)
    (turn / "answer.md").write_bytes(b"```python\r\nx = 1\r\n```")
    (turn / "source.txt").write_text("Qwen, blind, turn 2\n", encoding="utf-8")
    return turn


def test_a_case_holds_the_answer_verbatim_the_program_and_the_judgement(tmp_path: Path) -> None:
    program = next(p for p in load_programs() if p.name == "grades")
    turn = recorded_turn(tmp_path / "out", "rec-1.5b-grades-check")
    placed = tmp_path / "placed.py"
    placed.write_text("fixed\n", encoding="utf-8")
    folder = make_case(turn, "placed", "the fix", placed, tmp_path / "cases")
    assert folder.name == "rec-1.5b-grades-check-turn2"
    assert (folder / "answer.md").read_bytes() == b"```python\r\nx = 1\r\n```"
    assert (folder / "before" / program.module).read_text(encoding="utf-8") == program.source()
    assert (folder / "after" / program.module).read_text(encoding="utf-8") == "fixed\n"
    spec = json.loads((folder / "case.json").read_text(encoding="utf-8"))
    assert spec == {
        "target": program.module,
        "source": "Qwen, blind, turn 2",
        "expect": "placed",
        "why": "the fix",
    }


def test_a_case_is_never_made_over_another_nor_placed_without_its_after(tmp_path: Path) -> None:
    turn = recorded_turn(tmp_path / "out", "rec-0.5b-matrix-blind")
    with pytest.raises(SystemExit):
        make_case(turn, "placed", "no after", None, tmp_path / "cases")
    make_case(turn, "refused", "a guess", None, tmp_path / "cases")
    with pytest.raises(FileExistsError):
        make_case(turn, "refused", "again", None, tmp_path / "cases")
