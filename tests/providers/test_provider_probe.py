"""`rune-lsp check`'s probe against the double: what it finds and how it says it."""

from __future__ import annotations

from typing import Any

from rune_lsp.providers.probe import ProbeReport, probe, render_report
from rune_lsp.settings import Settings
from tests.doubles.model_double import HttpError, ModelDouble, ModelInfo


def _settings(double: ModelDouble, provider: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "provider": provider,
        "base_url": double.base_url(provider),
        "model": "qwen3:14b",
        **overrides,
    }
    return Settings(**values)


async def test_a_healthy_setup_is_usable(double: ModelDouble, provider: str) -> None:
    report = await probe(_settings(double, provider))

    assert report == ProbeReport(
        provider=provider,  # type: ignore[arg-type]
        base_url=double.base_url(provider),
        model="qwen3:14b",
        reachable=True,
        model_present=True,
        native_tools=True,
        thinking=provider == "ollama",
        # Ollama is asked for a window of 8192 of the 40960 trained; an OpenAI server is not.
        context_length=8192 if provider == "ollama" else 40960,
        round_trip_ok=True,
    )
    assert report.usable
    (ping,) = double.chat_requests
    assert [m["role"] for m in ping.body["messages"]] == ["user"]
    assert "tools" not in ping.body
    assert render_report(report).splitlines()[-1] == "Usable."


async def test_ollama_not_running(double: ModelDouble) -> None:
    double.refuse_connections()

    report = await probe(_settings(double, "ollama"))

    assert not report.reachable
    assert not report.usable
    assert report.problems == (
        f"Ollama is not running at {double.ollama_url}: start it with `ollama serve`.",
    )
    text = render_report(report)
    assert "server reachable   no" in text
    assert f"  - Ollama is not running at {double.ollama_url}" in text


async def test_openai_server_not_running(double: ModelDouble) -> None:
    double.refuse_connections()

    report = await probe(_settings(double, "openai"))

    assert report.problems == (
        f"No OpenAI-compatible server answers at {double.openai_url}: start it, or set "
        "`baseUrl` to the address it listens on.",
    )


async def test_ollama_model_not_pulled(double: ModelDouble) -> None:
    report = await probe(_settings(double, "ollama", model="mistral:7b"))

    assert report.reachable
    assert not report.model_present
    assert report.problems == (
        "The model `mistral:7b` is not installed in Ollama: run `ollama pull mistral:7b`, "
        "or set `model` to an installed one (qwen3:14b).",
    )
    assert double.chat_requests == []


async def test_latest_tag_counts_as_present(double: ModelDouble) -> None:
    double.models = (ModelInfo("llama3.2:latest"),)

    report = await probe(_settings(double, "ollama", model="llama3.2"))

    assert report.model_present
    assert report.usable


async def test_model_without_tools_is_usable_with_a_note(double: ModelDouble) -> None:
    double.models = (ModelInfo("gemma:2b", capabilities=("completion",), context_length=4096),)

    report = await probe(_settings(double, "ollama", model="gemma:2b"))

    assert report.usable
    assert report.native_tools is False
    assert any("text protocol" in note for note in report.notes)
    assert any("4096 tokens" in note for note in report.notes)
    assert "Note: `gemma:2b` has no native tool calling" in render_report(report)


async def test_failed_round_trip_makes_it_unusable(double: ModelDouble, provider: str) -> None:
    double.script(HttpError(500, "llama runner process has terminated"))

    report = await probe(_settings(double, provider))

    assert report.reachable and report.model_present
    assert not report.round_trip_ok
    assert not report.usable
    (problem,) = report.problems
    assert problem.startswith("A test question to `qwen3:14b` failed:")
    assert "llama runner process has terminated" in problem


async def test_llamacpp_answering_under_any_name(double: ModelDouble) -> None:
    double.serve_any_model = True
    double.models = (ModelInfo("Qwen3-8B-Q4_K_M.gguf"),)

    report = await probe(_settings(double, "openai", model="qwen3"))

    assert report.usable
    assert report.notes == ("The server lists Qwen3-8B-Q4_K_M.gguf, not `qwen3`.",)


async def test_openai_unknown_model(double: ModelDouble) -> None:
    report = await probe(_settings(double, "openai", model="gpt-nope"))

    assert not report.usable
    assert not report.model_present
    (problem,) = report.problems
    assert "`gpt-nope` is not served" in problem


async def test_rejected_key(double: ModelDouble) -> None:
    double.api_key = "right"

    report = await probe(_settings(double, "openai", api_key="sk-wrong-secret"))

    assert not report.usable
    assert any("Check `apiKey`" in p for p in report.problems)
    assert "sk-wrong-secret" not in render_report(report)
    assert "sk-wrong-secret" not in repr(report)


async def test_render_lists_every_check(double: ModelDouble) -> None:
    report = await probe(_settings(double, "ollama"))

    assert render_report(report).splitlines() == [
        f"rune-lsp check: ollama at {double.ollama_url}, model qwen3:14b",
        "  server reachable   yes",
        "  model available    yes",
        "  native tool calls  yes",
        "  thinking           yes",
        "  context length     8192 tokens",
        "  test answer        ok",
        "Usable.",
    ]
