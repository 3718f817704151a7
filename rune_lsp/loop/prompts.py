"""Fixed text the runtime itself says to the model about the run: the check's verdicts and the
synthesis turn's ask. The system message of each kind of turn is the reader table's
(answers/table.py); what a reader tells the model about its own answer format is that reader's
(answers/calls/prompts.py, answers/code_prompts.py)."""

from __future__ import annotations

from rune_lsp.answers import code_prompts
from rune_lsp.answers.code_prompts import BLOCK_ASK, unchanged_head
from rune_lsp.loop.state import CheckReport
from rune_lsp.loop.task import FILE_NAME_LINE, is_test_path, other_file_clause

#: The last message of a run that ended early: one more model call, with no tools offered.
FINAL_SYNTHESIS_INSTRUCTION = (
    "The run is ending: a call you made repeated an earlier call with an identical result, "
    "so it was skipped, and no more tools can be called. Do not call any tool. Write your "
    "final answer now from the results you already have: what you found, what you changed, "
    "and what remains undone."
)


# --- the check command's verdicts, as the model reads them ---------------------------------------


def _verdict(report: CheckReport) -> str:
    if report.note:
        return f"ran, but {report.note}, so it may not show your changes"
    if report.timed_out:
        return "timed out"
    if report.exit_code is None:
        return "could not run"
    return f"failed (exit {report.exit_code})"


def _output(report: CheckReport) -> str:
    shown = report.output.strip()
    return f" The end of its output:\n```\n{shown}\n```" if shown else ""


def check_before_text(
    report: CheckReport, target: str | None = None, beside: tuple[str, ...] = ()
) -> str:
    """Added to the task: how the check stands before any change. With `target` (a fix of one
    file), a failing check ends by asking again for the corrected function in a block, naming
    the file: after a test report, Qwen2.5-Coder 1.5B otherwise "fixed" lines of the report
    (`edit_file` on `assert median([4, 1, 3, 2]) == 2.5`). `beside`: the files the task showed
    as where the bug may be instead (`RunState.beside`), named with the target."""
    command = f"`{report.command}`"
    if report.passed:
        return (
            f"The check {command} passes already (exit 0), so no test fails right now: "
            "change the code only if the task still needs it."
        )
    failed = f"The check {command} {_verdict(report)} on the current code.{_output(report)}\n"
    if target is None:
        return failed + "Change the code so that it passes."
    if is_test_path(target):
        # Told "the bug is in tests/test_x.py", the model re-sent the test unchanged and never
        # looked at the module it tests (issue 26: 0 of 8 fixed).
        return f"{failed}{_test_is_right(target)} Change that code so that the check passes: " + (
            _block_ask_of(None)
        )
    if beside:
        return (
            f"{failed}The test is right; the bug is in {_where(target, beside)}. Change that "
            f"code so that the check passes: {_block_ask_beside(target, beside)}"
        )
    return (
        f"{failed}The test is right; the bug is in {target}. Change {target} so that the "
        f"check passes: {BLOCK_ASK}."
    )


def _where(target: str, beside: tuple[str, ...]) -> str:
    """Where the bug may be: the run's target or a file the task showed beside it. Told "the
    bug is in textstats/report.py" after it had sent back textstats/words.py, where the bug
    was, Qwen2.5-Coder 1.5B turned to report.py for the rest of the run (bench/effect
    corpus_multi 08_word_count, 2026-12-07)."""
    files = (target, *beside)
    return f"{', '.join(files[:-1])} or {files[-1]}"


def _block_ask_beside(target: str, beside: tuple[str, ...]) -> str:
    return f"{BLOCK_ASK}{other_file_clause(target, beside[0])}."


def _test_is_right(target: str) -> str:
    return f"The test is right: do not change {target}. The bug is in the code it tests."


def _block_ask_of(path: str | None) -> str:
    """The ask for a block of another file than the run's target: `path`, or the one the
    model picks (None)."""
    named = (
        f"`{FILE_NAME_LINE}{path}`" if path else f"`{FILE_NAME_LINE.strip()}` and that file's path"
    )
    return f"{BLOCK_ASK}, its first line {named}."


def no_block_text(target: str) -> str:
    """An answer asked for code that holds no code block. On a test target it asks for the code
    the test tests, never for the test: "no code block of tests/test_x.py. To change it, ..."
    is how a small model came to rewrite the test (bench/effect corpus_multi 07_config_get)."""
    if not is_test_path(target):
        return code_prompts.no_block_text(target)
    return (
        f"[rune] Nothing was changed: your answer holds no code block. {_test_is_right(target)} "
        f"To change that code, {_block_ask_of(None)}"
    )


def unchanged_text(
    sent: str,
    target: str,
    withheld: CheckReport | None = None,
    *,
    layout: bool = False,
    beside: tuple[str, ...] = (),
) -> str:
    """A code block that is file `sent`'s code as it is now while the check fails, on a run
    whose target is `target`. With `withheld` (the model has not yet seen the failing check:
    `RunState.withheld_check`), the check's verdict, worded as the task's. Each note names the
    file the block was code of: on a test target, told "the same as the current code of
    tests/test_x.py" about the module it had sent back, Qwen2.5-Coder 1.5B re-sent the test
    (bench/effect corpus_multi 02_slugify, 04_duration, 06_inventory, 2026-12-02). `layout`:
    the block changed only blank lines, comments or layout of that code. `beside`: as for
    `check_before_text`; the target sent back is then asked about with those files."""
    head = unchanged_head(sent, layout=layout)
    if withheld is not None:
        return f"{head}.\n\n{check_before_text(withheld, target, beside)}"
    if sent == target and is_test_path(target):
        return f"{head}, and the check still fails. {_test_is_right(target)} Fix that code: " + (
            _block_ask_of(None)
        )
    if sent == target and beside:
        return (
            f"{head}, and the check still fails. Find the line of {_where(target, beside)} "
            f"that causes the failure, then {_block_ask_beside(target, beside)}"
        )
    ask = f"{BLOCK_ASK}." if sent == target else _block_ask_of(sent)
    return (
        f"{head}, and the check still fails. Find the line of {sent} that causes the failure, "
        f"then {ask}"
    )


def check_after_text(
    report: CheckReport, listing: str | None = None, named: str | None = None
) -> str:
    """After the results of a turn whose edits landed: the check on the changed code. With
    `listing` (the target file as it is now: a small model otherwise repeats its last answer
    instead of reading what its change did), the model is asked for the corrected code again;
    `named`: the listed file is not the run's target, so the block must name it."""
    command = f"`{report.command}`"
    if report.passed:
        return f"After your change the check {command} passes (exit 0)."
    failed = f"After your change the check {command} {_verdict(report)}.{_output(report)}\n"
    if listing is None:
        return failed + "Fix what still fails, or answer without tools if you cannot."
    return (
        f"{failed}{listing}\nFix what still fails: "
        f"{_block_ask_of(named) if named else f'{BLOCK_ASK}.'} If you cannot, say why without code."
    )


# --- candidate fixes (loop/candidates.py) ---------------------------------------------------------


def tried_fix_text(
    number: int,
    code: str,
    report: CheckReport | None,
    problem: str = "",
    paths: tuple[str, ...] = (),
) -> str:
    """One candidate fix that did not pass, as the request for the next one shows it: the
    files it changed, its code, and the check's verdict on it in the scratch copy (or why it
    could not be applied)."""
    of = f" (of {', '.join(paths)})" if paths else ""
    shown = f"```\n{code.strip()}\n```" if code.strip() else "(it changed no code)"
    if report is None and not problem:  # checked while the next fix is asked for
        return f"Fix {number}{of}:\n{shown}\nIts check has not finished."
    if report is None:
        return f"Fix {number}{of}:\n{shown}\nIt could not be applied: {problem}"
    return (
        f"Fix {number}{of}:\n{shown}\nWith it, the check `{report.command}` "
        f"{_verdict(report)}.{_output(report)}"
    )


def candidate_request_text(
    tried: list[str], target: str | None, beside: tuple[str, ...] = ()
) -> str:
    """The request for another candidate fix after `tried` (from `tried_fix_text`) failed. On
    a test target it asks for a fix of the code the test tests: asked for "a different fix of
    tests/test_x.py", a small model rewrites the test. `beside`: as for `check_before_text`."""
    head = (
        "Your fix was tried on a copy of the workspace, and it does not pass the check:"
        if len(tried) == 1
        else "Your fixes were tried on a copy of the workspace, and none passes the check so far:"
    )
    if target is not None and is_test_path(target):
        ask = f"{_test_is_right(target)} Write a different fix of that code: {_block_ask_of(None)}"
    elif target is not None and beside:
        where = _where(target, beside)
        ask = f"Write a different fix of {where}: {_block_ask_beside(target, beside)}"
    else:
        where = f" of {target}" if target else ""
        ask = f"Write a different fix{where}: {BLOCK_ASK}."
    return f"{head}\n\n" + "\n\n".join(tried) + f"\n\n{ask} Do not repeat a fix that failed."
