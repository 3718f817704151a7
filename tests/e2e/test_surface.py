"""The rest of the LSP surface: the `Rune: Fix this` code action, progress, stdio hygiene,
responsiveness while a run waits, and bad command arguments."""

from __future__ import annotations

import asyncio
import re

from lsprotocol import types

from tests.doubles.model_double import Hang, ModelDouble, Reply
from tests.e2e.conftest import Launch
from tests.e2e.editor import WAIT
from tests.e2e.scenario import calls, edit, told

LINE_1 = types.Range(
    start=types.Position(line=1, character=0), end=types.Position(line=1, character=16)
)


def lint(message: str, source: str = "pyright") -> types.Diagnostic:
    return types.Diagnostic(
        range=LINE_1,
        message=message,
        severity=types.DiagnosticSeverity.Error,
        source=source,
        code="reportGeneralIssue",
    )


async def test_fix_this_is_a_quickfix_over_diagnostics_and_a_rewrite_otherwise(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(Reply(text="add subtracts."))
    editor = await launch("vscode")
    editor.open("app.py")
    uri = editor.uri("app.py")
    foreign, ours = lint("add returns a difference"), lint("a rune review", source="rune")

    [quickfix] = await editor.code_actions(uri, LINE_1, [foreign, ours])
    [rewrite] = await editor.code_actions(uri, LINE_1, [ours])
    only_quickfix = await editor.code_actions(uri, LINE_1, [], only=["quickfix"])
    only_refactor = await editor.code_actions(uri, LINE_1, [], only=["refactor"])

    assert quickfix.title == rewrite.title == "Rune: Fix this"
    assert quickfix.kind == types.CodeActionKind.QuickFix
    assert list(quickfix.diagnostics or ()) == [foreign]  # the other server's, never our own
    assert rewrite.kind == types.CodeActionKind.RefactorRewrite
    assert only_quickfix == [] and [a.kind for a in only_refactor] == ["refactor.rewrite"]
    assert quickfix.command is not None and quickfix.command.command == "rune.fixThis"

    # Running the action's command passes the range and the diagnostics on to the model.
    result = await editor.command(quickfix.command.command, *(quickfix.command.arguments or ()))

    assert result["outcome"] == "completed"
    prompt = told(double, 0)
    assert "add returns a difference" in prompt and "[pyright]" in prompt
    assert "Range: lines 2-2" in prompt


async def test_progress_reports_start_with_step_n_of_m(launch: Launch, double: ModelDouble) -> None:
    double.script(
        calls(("read_file", {"path": "app.py"})),
        edit("app.py", "return a - b", "return a + b"),
        Reply(text="Done."),
    )
    editor = await launch("vscode", settings={"maxIterations": 5})
    editor.open("app.py")

    result = await editor.fix("app.py")

    token = f"rune/{result.run_id}"
    reports = editor.client.progress_reports[token]
    begin, *_, end = reports
    assert isinstance(begin, types.WorkDoneProgressBegin) and begin.cancellable
    assert begin.title == "Rune: app.py"
    assert isinstance(end, types.WorkDoneProgressEnd)
    assert end.message == "completed · 1 edit applied"
    messages = editor.progress_messages(token)
    assert messages and all(re.match(r"step \d/5 · ", m) for m in messages), messages
    # Steps taken while the client was still accepting the progress token are not lost.
    assert messages[0] == "step 1/5 · asking the model"
    assert "step 1/5 · read_file app.py" in messages
    assert "step 2/5 · waiting for review: edit_file app.py" in messages
    assert messages[-1] == "step 3/5 · completed · 1 edit applied"


async def test_a_run_that_proposed_no_change_says_so_at_its_end(
    launch: Launch, double: ModelDouble
) -> None:
    # Prose three times: the answer, then after the coaching turn, then in the text protocol.
    double.script(*[Reply(text="add() looks wrong to me, it subtracts.")] * 3)
    editor = await launch("vscode")
    editor.open("app.py")

    result = await editor.fix("app.py")

    assert (result.outcome, result.edits) == ("completed", ())  # what programs read stays
    token = f"rune/{result.run_id}"
    end = editor.client.progress_reports[token][-1]
    assert isinstance(end, types.WorkDoneProgressEnd)
    assert end.message == "completed · no change proposed"
    assert editor.progress_messages(token)[-1] == "step 2/8 · completed · no change proposed"


async def test_logs_go_to_stderr_and_stdout_stays_pure_json_rpc(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(Reply(text="Nothing to do."))
    editor = await launch("neovim")

    await editor.fix("app.py")
    await editor.close()

    assert editor.client.stdout_violations == []
    stderr = "".join(editor.client.stderr_lines)
    assert "step 1/8 · asking the model" in stderr
    assert "Sending data" not in stderr  # pygls' per-message logging stays off by default
    assert "HTTP Request" not in stderr  # and so does httpx's line per model request


async def test_the_server_answers_while_a_run_waits_on_a_slow_model(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(Hang())
    editor = await launch("vscode")
    editor.open("app.py")
    fix = editor.start_fix("app.py")
    assert await asyncio.to_thread(double.wait_for_chat, WAIT)

    actions = await asyncio.wait_for(
        editor.code_actions(editor.uri("app.py"), LINE_1), timeout=WAIT
    )
    run_id = (await editor.run_token()).removeprefix("rune/")

    assert [a.title for a in actions] == ["Rune: Fix this"]
    assert not fix.task.done()
    assert await editor.command("rune.cancel", {"runId": run_id}) == {"cancelled": True}
    assert (await fix.result()).outcome == "cancelled"


async def test_bad_command_arguments_are_invalid_params_naming_the_field(
    launch: Launch,
) -> None:
    editor = await launch("neovim")

    no_uri = await editor.command_error("rune.fixThis", {"range": {"start": {}}})
    bad_line = await editor.command_error(
        "rune.fixThis",
        {"uri": editor.uri("app.py"), "range": {"start": {"line": -1, "character": 0}}},
    )
    no_run = await editor.command_error("rune.cancel", {})
    two = await editor.command_error("rune.acceptEdit", {"editId": "a"}, {"editId": "b"})
    missing = await editor.command_error("rune.fixThis", {"uri": editor.uri("nope.py")})

    assert "rune.fixThis" in no_uri and "uri" in no_uri
    assert "range.start.line" in bad_line
    assert "runId" in no_run
    assert "one argument object, got 2" in two
    assert "cannot read" in missing and "nope.py" in missing
