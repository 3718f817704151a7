"""Issue 16: a turn's usage says how much of its prompt the server reused from its prompt cache
(llama-server's `timings.cache_n`, OpenAI's `prompt_tokens_details.cached_tokens`, Ollama's
`prompt_eval_cached_count`), so a run's receipt and the bench can show cached vs processed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rune_lsp.loop.messages import Usage
from rune_lsp.providers import ollama_wire, openai_wire

FIXTURES = Path(__file__).parent / "fixtures"
#: Recorded: Qwen2.5-Coder-1.5B on llama-server, a second request whose prefix was cached.
CACHED = FIXTURES / "qwen-1.5b" / "sum_to_n_blind_native.sse"


def events(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [
        json.loads(line[5:]) for line in lines if line.startswith("data:") and "[DONE]" not in line
    ]


def usage(chunks: list[dict[str, Any]]) -> Usage:
    builder = openai_wire.TurnBuilder()
    for chunk in chunks:
        builder.feed(openai_wire.Chunk.model_validate(chunk))
    builder.finish()
    return builder.turn().usage


def test_a_recorded_llama_server_answer_splits_the_prompt_into_cached_and_processed() -> None:
    read = usage(events(CACHED))

    # The recording's own numbers: timings {cache_n: 1148, prompt_n: 144}, 136 generated.
    assert read == Usage(prompt_tokens=1292, completion_tokens=136, cached_tokens=1148)


def test_the_timings_alone_say_it_when_the_server_sends_no_usage() -> None:
    without_usage = [{k: v for k, v in e.items() if k != "usage"} for e in events(CACHED)]

    assert usage(without_usage) == Usage(
        prompt_tokens=1292, completion_tokens=136, cached_tokens=1148
    )


def test_the_timings_win_over_a_usage_that_counts_only_the_evaluated_part() -> None:
    last = {"choices": [], "usage": {"prompt_tokens": 144, "completion_tokens": 136}}
    last["timings"] = {"cache_n": 1148, "prompt_n": 144, "predicted_n": 136}

    assert usage([last]) == Usage(prompt_tokens=1292, completion_tokens=136, cached_tokens=1148)


def test_a_hosted_api_says_it_in_the_usage_details() -> None:
    details = {"prompt_tokens": 900, "completion_tokens": 5}
    details["prompt_tokens_details"] = {"cached_tokens": 768}  # type: ignore[assignment]

    assert usage([{"choices": [], "usage": details}]) == Usage(
        prompt_tokens=900, completion_tokens=5, cached_tokens=768
    )


def test_a_server_that_does_not_say_leaves_it_unknown() -> None:
    old_llama = {"choices": [], "timings": {"prompt_n": 311, "predicted_n": 29}}

    assert usage([old_llama]) == Usage(prompt_tokens=311, completion_tokens=29)
    assert usage([{"choices": [], "usage": {"prompt_tokens": 3}}]).cached_tokens is None


def test_ollama_reports_the_cached_part_beside_the_whole_prompt() -> None:
    builder = ollama_wire.TurnBuilder()
    final = {"done": True, "done_reason": "stop", "prompt_eval_count": 1187, "eval_count": 64}
    builder.feed(ollama_wire.ChatChunk.model_validate({**final, "prompt_eval_cached_count": 1024}))

    assert builder.turn().usage == Usage(
        prompt_tokens=1187, completion_tokens=64, cached_tokens=1024
    )
