"""The preamble count: each part of rune's first request is what its rendering adds, counted by
the server (here a double whose template and tokenizer are plain enough to count by hand)."""

from __future__ import annotations

import json

import httpx

from bench.effect.bench import Attempt, summarize
from bench.effect.preamble import EXAMPLE, measure
from bench.effect.report import row
from rune_lsp.answers.calls.prompts import protocol_prompt
from rune_lsp.answers.table import system_text
from rune_lsp.providers.openai_wire import wire_tool
from rune_lsp.tools.catalog import TOOLS


def words(text: str) -> int:
    return len(text.split())


def render(body: dict[str, object]) -> str:
    """A template: every message's content between turn markers, then the tools, one per line."""
    messages = body["messages"]
    assert isinstance(messages, list)
    parts = [f"<turn> {m['content']} </turn>" for m in messages]
    parts += [json.dumps(tool) for tool in body.get("tools", [])]  # type: ignore[attr-defined]
    return " ".join([*parts, "<answer>"])


def server(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    if request.url.path == "/apply-template":
        return httpx.Response(200, json={"prompt": render(body)})
    assert request.url.path == "/tokenize" and body["parse_special"] is True
    return httpx.Response(200, json={"tokens": list(range(words(body["content"])))})


def test_each_part_is_what_its_rendering_adds() -> None:
    counted = measure("http://llama:8080/v1", transport=httpx.MockTransport(server))

    tools = sum(words(json.dumps(wire_tool(tool.spec))) for tool in TOOLS)
    system, task = words(system_text("tools")), words(EXAMPLE.prompt())
    assert counted.tools == tools
    assert counted.per_tool["edit_file"] == words(json.dumps(wire_tool(TOOLS[3].spec)))
    assert (counted.system, counted.task) == (system, task)
    # Two turns' markers (2 each) and the answer marker are the template's, charged to no part.
    assert counted.request == system + task + tools + 5
    assert counted.before_task == counted.request - task
    # The text protocol goes into the system message instead of the schemas.
    assert counted.text_protocol == words(protocol_prompt([tool.spec for tool in TOOLS]))
    assert "tool schemas" in counted.summary() and str(counted.tools) in counted.summary()
    # The code-first turn (the default first turn) sends its own shorter system message, the
    # task, and nothing about tools.
    assert counted.code_first_request == words(system_text("code_first")) + task + 5
    assert counted.code_first_request < counted.request - tools


def attempt(first: int, requests: int, prompt: int, fixed: bool) -> Attempt:
    return Attempt(
        arm="rune_blind", task="t", kind="k", fixed=fixed, outcome="completed", detail="",
        seconds=1.0, requests=requests, unfinished_requests=0, prompt_tokens=prompt,
        processed_tokens=prompt, cached_tokens=0, completion_tokens=1, longest_request_s=1.0,
        first_prompt_tokens=first,
    )  # fmt: skip


def test_the_report_shows_tokens_per_request_and_the_first_requests_median() -> None:
    summary = summarize(
        "rune_blind",
        [attempt(900, 2, 2000, True), attempt(1100, 3, 4000, False), attempt(1300, 1, 1300, False)],
    )

    assert summary.prompt_tokens_per_request == round(7300 / 6, 1)
    assert summary.first_prompt_median == 1100
    assert "| 1217 | 1100 |" in row(summary)
