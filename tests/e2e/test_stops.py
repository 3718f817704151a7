"""How runs end when the model misbehaves or cannot be reached, and what bad settings do."""

from __future__ import annotations

from lsprotocol import types

from tests.doubles.model_double import ModelDouble, Reply
from tests.e2e.conftest import Launch
from tests.e2e.scenario import calls, told


async def test_the_same_failing_call_twice_trips_the_breaker(
    launch: Launch, double: ModelDouble
) -> None:
    missing = calls(("read_file", {"path": "missing.py"}))
    double.script(missing, missing, Reply(text="never asked for"))
    editor = await launch("neovim")

    result = await editor.fix("app.py")

    assert result.outcome == "failed"
    assert result.error == "tool read_file failed 2 consecutive times with identical arguments"
    assert result.calls() == [("read_file", "failed"), ("read_file", "failed")]
    assert len(double.chat_requests) == 2
    assert double.remaining == 1


async def test_an_exact_repeat_is_blocked_and_the_run_ends_with_a_synthesis(
    launch: Launch, double: ModelDouble
) -> None:
    same = calls(("read_file", {"path": "app.py"}))
    double.script(same, same, same, Reply(text="add subtracts; that is the bug."))
    editor = await launch("vscode")

    result = await editor.fix("app.py")

    assert result.outcome == "incomplete"
    assert result.error == "repeat guard: read_file blocked after 3 identical calls"
    assert result.calls() == [("read_file", "ok"), ("read_file", "ok"), ("read_file", "skipped")]
    assert result.answer.startswith("add subtracts; that is the bug.")
    assert "Tool calls executed" in result.answer and "skipped" in result.answer
    final_request = double.chat_requests[-1].body
    assert not final_request.get("tools")  # the synthesis offers no tools


async def test_a_model_that_never_stops_calling_tools_hits_the_iteration_limit(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(
        calls(("read_file", {"path": "app.py", "start_line": 1, "end_line": 2})),
        calls(("read_file", {"path": "app.py", "start_line": 3, "end_line": 4})),
        calls(("read_file", {"path": "app.py", "start_line": 5, "end_line": 6})),
    )
    editor = await launch("neovim", settings={"maxIterations": 2})

    result = await editor.fix("app.py")

    assert result.outcome == "failed"
    assert result.error == "iteration limit reached (2/2) before a final answer"
    assert (result.iterations_used, result.iteration_budget) == (2, 2)
    assert len(double.chat_requests) == 2


async def test_an_unreachable_provider_fails_the_run_with_what_to_do(
    launch: Launch, double: ModelDouble
) -> None:
    editor = await launch("vscode")
    double.refuse_connections()

    result = await editor.fix("app.py")

    assert result.outcome == "failed"
    assert result.error == (
        f"Ollama is not reachable at {double.ollama_url} (connection refused): "
        "is it running? Start it with `ollama serve`."
    )
    assert result.receipt is not None

    # Settings pushed with didChangeConfiguration apply to the next run.
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"rune": {"provider": "openai", "baseUrl": double.openai_url}}
        )
    )
    await editor.wait_for(
        lambda: editor.logged(f"rune: openai model qwen3:14b at {double.openai_url}"),
        "the pushed settings applied",
    )
    result = await editor.fix("app.py")

    assert result.error == (
        f"The OpenAI-compatible server is not reachable at {double.openai_url} (connection "
        "refused): is it running? Start it, or set `baseUrl` to the address it listens on."
    )


async def test_a_bad_setting_is_named_its_default_kept_and_the_server_still_works(
    launch: Launch, double: ModelDouble
) -> None:
    # Said again on the corrective turns a prose first answer gets (protocol choice).
    double.default = Reply(text="Nothing to change.")
    # Bad in both sources: the user hears about it once.
    editor = await launch(
        "vscode", settings={"maxIterations": 12}, configuration={"maxIterations": 12}
    )
    await editor.wait_for(
        lambda: editor.received(types.WORKSPACE_CONFIGURATION), "the settings pull"
    )

    result = await editor.fix("app.py")

    warnings = [m for m in editor.client.messages if "maxIterations" in m.message]
    assert len(warnings) == 1
    assert warnings[0].type == types.MessageType.Warning
    assert "12" in warnings[0].message and "default" in warnings[0].message
    assert result.outcome == "completed"
    assert result.iteration_budget == 8
    assert "Nothing to change" in result.answer


async def test_workspace_configuration_overrides_initialization_options(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(calls(("read_file", {"path": "app.py"})), Reply(text="never asked for"))
    editor = await launch("neovim", configuration={"maxIterations": 1})
    await editor.wait_for(lambda: editor.logged("maxIterations 1,"), "the pulled settings")

    result = await editor.fix("app.py")

    assert result.iteration_budget == 1
    assert result.error == "iteration limit reached (1/1) before a final answer"
    assert "File: app.py" in told(double)  # the one turn the budget allowed was the task's

    # A didChangeConfiguration without settings makes the server pull them again.
    editor.client.set_configuration({"maxIterations": 3}, section="rune")
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    await editor.wait_for(lambda: editor.logged("maxIterations 3,"), "the re-read settings")
