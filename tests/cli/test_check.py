"""`rune-lsp check` against the model double: usable, model missing, server down."""

from __future__ import annotations

from tests.cli.conftest import RunCli
from tests.doubles.model_double import HttpError, ModelDouble, ModelInfo


def test_usable_setup_exits_0_through_the_entry_point(cli: RunCli, double: ModelDouble) -> None:
    finished = cli("check")
    assert finished.returncode == 0, finished.output
    out = finished.stdout
    assert out.startswith(f"rune-lsp check: ollama at {double.ollama_url}, model qwen3:14b\n")
    assert "server reachable   yes" in out
    assert "model available    yes" in out
    assert "native tool calls  yes" in out
    assert "thinking           yes" in out
    assert "context length     8192 tokens" in out
    assert "test answer        ok" in out
    assert out.rstrip().endswith("Usable.")
    assert len(double.chat_requests) == 1  # one tiny round trip


def test_missing_model_exits_1_and_lists_the_installed_ones(
    rune: RunCli, double: ModelDouble
) -> None:
    double.models = (ModelInfo("qwen3:14b"), ModelInfo("llama3.1:8b"))
    finished = rune("check", "--model", "mistral")
    assert finished.returncode == 1
    assert "Not usable:" in finished.stdout
    assert (
        "The model `mistral` is not installed in Ollama: run `ollama pull mistral`, or set "
        "`model` to an installed one (qwen3:14b, llama3.1:8b)."
    ) in finished.stdout
    assert double.chat_requests == []


def test_server_down_exits_1_with_the_sentence(rune: RunCli, double: ModelDouble) -> None:
    double.refuse_connections()
    finished = rune("check")
    assert finished.returncode == 1
    assert (
        f"Ollama is not running at {double.ollama_url}: start it with `ollama serve`."
        in finished.stdout
    )
    assert "server reachable   no" in finished.stdout


def test_openai_compatible_server_down_names_base_url(rune: RunCli, double: ModelDouble) -> None:
    double.refuse_connections()
    finished = rune("check", "--provider", "openai", "--base-url", double.openai_url)
    assert finished.returncode == 1
    assert f"No OpenAI-compatible server answers at {double.openai_url}" in finished.stdout


def test_openai_compatible_usable(rune: RunCli, double: ModelDouble) -> None:
    finished = rune("check", "--provider", "openai", "--base-url", double.openai_url)
    assert finished.returncode == 0, finished.output
    assert finished.stdout.startswith(f"rune-lsp check: openai at {double.openai_url}")


def test_failing_round_trip_is_not_usable(rune: RunCli, double: ModelDouble) -> None:
    double.script(HttpError(500, "out of memory"))
    finished = rune("check")
    assert finished.returncode == 1
    assert "test answer        failed or not tried" in finished.stdout
    assert "out of memory" in finished.stdout


def test_model_without_tools_is_usable_with_a_note(rune: RunCli, double: ModelDouble) -> None:
    double.models = (ModelInfo("gemma:2b", capabilities=("completion",), context_length=4096),)
    finished = rune("check", "--model", "gemma:2b")
    assert finished.returncode == 0
    assert "native tool calls  no" in finished.stdout
    assert "has no native tool calling" in finished.stdout
    assert "handles only 4096 tokens of context" in finished.stdout


def test_settings_precedence_shows_in_the_report(rune: RunCli, double: ModelDouble) -> None:
    env = {"RUNE_MODEL": "from-env"}
    assert "model from-env" in rune("check", env=env).stdout
    assert "model from-flag" in rune("check", "--model", "from-flag", env=env).stdout


def test_bad_flag_exits_2(rune: RunCli, double: ModelDouble) -> None:
    finished = rune("check", "--request-timeout", "never")
    assert finished.returncode == 2
    assert finished.stderr.startswith("rune-lsp check: invalid --request-timeout: ")
    assert double.requests == []


def test_api_key_is_not_echoed_by_check(rune: RunCli) -> None:
    wrong = "sk-wrong-key-123456"
    with ModelDouble(api_key="sk-right") as guarded:
        finished = rune(
            "check",
            "--provider",
            "openai",
            "--base-url",
            guarded.openai_url,
            env={"RUNE_API_KEY": wrong},
        )
    assert finished.returncode == 1
    assert wrong not in finished.output
