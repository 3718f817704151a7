"""Fix this on a failing test: what the model is told names the module under test, never the
test, once it has written code of that module (issue 26 point 2; bench/effect corpus_multi)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.records import EditRecord
from rune_lsp.loop.state import CheckReport, Finished, Paused, PreparedChange, PreparedEdit

from .fakes import FakeExecutor, ScriptedModel, answer, approve_all

TEST = "tests/test_slug.py"
MODULE = "textkit/slug.py"
TEST_TEXT = (
    'from textkit.slug import slugify\n\n\ndef test_caps():\n    assert slugify("A") == "a"\n'
)
BUGGY = "def slugify(title):\n    return title\n"
FIXED = "def slugify(title):\n    return title.lower()\n"
FAILING = CheckReport(
    command="pytest -q tests/test_slug.py", exit_code=1, output="E assert 'A' == 'a'\n1 failed"
)
PASSING = CheckReport(command="pytest -q tests/test_slug.py", exit_code=0, output="1 passed")


def block_of(path: str, code: str) -> str:
    return f"```python\n# file: {path}\n{code}```"


@dataclass
class Checker:
    """Fails before any change and on every candidate but `FIXED`."""

    command: str = "pytest -q tests/test_slug.py"

    async def check(self, edits: Sequence[EditRecord]) -> CheckReport:
        return FAILING

    async def check_changes(self, changes: Sequence[PreparedChange]) -> CheckReport:
        [change] = changes
        assert isinstance(change, PreparedEdit)
        return (
            PASSING if "lower()" in change.new_text else FAILING.model_copy(update={"failures": 1})
        )


def workspace() -> FakeExecutor:
    executor = FakeExecutor()
    executor.files = {TEST: TEST_TEXT, MODULE: BUGGY}
    return executor


async def run(
    model: ScriptedModel, config: LoopConfig, executor: FakeExecutor
) -> Paused | Finished:
    loop = AgentLoop(model, executor, config)
    return await loop.run(
        "The test tests/test_slug.py fails. Fix the bug.",
        run_id="r",
        target=TEST,
        checker=Checker(),
    )


async def test_the_module_sent_back_unchanged_is_named_and_asked_for_by_name() -> None:
    model = ScriptedModel.of(answer(block_of(MODULE, BUGGY)), answer(block_of(MODULE, FIXED)))
    outcome = await run(model, LoopConfig(candidates=4), workspace())

    note = model.calls[1].messages[-1].content
    assert note.startswith(f"Your code block is the same as the current code of {MODULE}")
    assert f"Find the line of {MODULE} that causes the failure" in note
    assert note.endswith(f"its first line `# file: {MODULE}`.")
    assert TEST not in note  # told of the test, the model re-sent the test
    assert isinstance(outcome, Paused)
    [change] = outcome.state.turn.pending
    assert isinstance(change, PreparedEdit) and change.path.endswith(MODULE)


async def test_the_test_sent_back_unchanged_is_told_the_test_is_right() -> None:
    model = ScriptedModel.of(answer(block_of(TEST, TEST_TEXT)), answer("I cannot."))
    await run(model, LoopConfig(candidates=4), workspace())

    note = model.calls[1].messages[-1].content
    assert note.startswith(f"Your code block is the same as the current code of {TEST}")
    assert f"The test is right: do not change {TEST}. The bug is in the code it tests." in note
    assert note.endswith("its first line `# file:` and that file's path.")


async def test_a_candidate_retry_asks_for_the_code_the_test_tests_and_names_the_fix_tried() -> None:
    wrong = "def slugify(title):\n    return title.upper()\n"
    model = ScriptedModel.of(answer(block_of(MODULE, wrong)), answer(block_of(MODULE, FIXED)))
    outcome = await run(model, LoopConfig(candidates=4), workspace())

    request = model.calls[1].messages[-1].content
    assert f"Fix 1 (of {MODULE}):" in request and "title.upper()" in request
    assert f"do not change {TEST}" in request
    assert "Write a different fix of that code: " in request
    assert f"a different fix of {TEST}" not in request
    assert isinstance(outcome, Paused)
    [change] = outcome.state.turn.pending
    assert isinstance(change, PreparedEdit) and "lower()" in change.new_text
    assert change.checked == "passed"


async def test_a_landed_fix_that_still_fails_shows_the_module_it_changed() -> None:
    executor = workspace()
    wrong = "def slugify(title):\n    return title.upper()\n"
    model = ScriptedModel.of(answer(block_of(MODULE, wrong)), answer("I cannot."))
    loop = AgentLoop(model, executor, LoopConfig(candidates=1))  # no search: it lands as is
    outcome = await loop.run("Fix it.", run_id="r", target=TEST, checker=Checker())
    assert isinstance(outcome, Paused)
    approve_all(outcome.state)
    executor.files[MODULE] = wrong  # what applying it made of the file
    await loop.resume(outcome.state, checker=Checker())

    verdict = model.calls[1].messages[-1].content
    assert f"{MODULE} now reads:\n```\n{wrong}```" in verdict
    assert TEST_TEXT not in verdict
    assert f"its first line `# file: {MODULE}`. If you cannot, say why without code." in verdict


async def test_an_answer_without_code_on_a_test_target_is_asked_for_the_code_it_tests() -> None:
    model = ScriptedModel.of(answer("The test is wrong."), answer("I cannot."))
    await run(model, LoopConfig(candidates=4), workspace())

    note = model.calls[1].messages[-1].content
    assert note.startswith("[rune] Nothing was changed: your answer holds no code block. ")
    assert f"do not change {TEST}" in note
    assert note.endswith("its first line `# file:` and that file's path.")


# --- moved to the module under test, with the files it uses shown beside it ---------------------

REPORT = "textstats/report.py"
WORDS = "textstats/words.py"
REPORT_TEXT = (
    "from textstats.words import count_words\n\n\n"
    "def summary(text):\n    return f'{count_words(text)} words'\n"
)
WORDS_TEXT = "def count_words(text):\n    return len(text.split(' '))\n"
WORDS_FIXED = "def count_words(text):\n    return len(text.split())\n"


@dataclass
class WordsChecker:
    """Fails until `count_words` splits on any run of whitespace."""

    command: str = "pytest -q tests/test_report.py"

    async def check(self, edits: Sequence[EditRecord]) -> CheckReport:
        return FAILING.model_copy(update={"command": self.command})

    async def check_changes(self, changes: Sequence[PreparedChange]) -> CheckReport:
        fixed = any(isinstance(c, PreparedEdit) and "split()" in c.new_text for c in changes)
        report = PASSING if fixed else FAILING.model_copy(update={"failures": 1})
        return report.model_copy(update={"command": self.command})


async def run_on_report(model: ScriptedModel, candidates: int) -> Paused | Finished:
    executor = FakeExecutor()
    executor.files = {REPORT: REPORT_TEXT, WORDS: WORDS_TEXT}
    loop = AgentLoop(model, executor, LoopConfig(candidates=candidates))
    return await loop.run(
        "The test tests/test_report.py fails. Fix the bug.",
        run_id="r",
        target=REPORT,
        beside=(WORDS,),
        checker=WordsChecker(),
    )


async def test_a_file_beside_the_module_sent_back_is_not_told_the_bug_is_in_the_module() -> None:
    # corpus_multi 08_word_count: the model sent words.py, where the bug was, back unchanged;
    # told "the bug is in textstats/report.py", it turned to report.py for the rest of the run.
    # Sent back three times: the first request, then asked again twice (loop/resample.py).
    sent_back = [answer(block_of(WORDS, WORDS_TEXT))] * 3
    model = ScriptedModel.of(*sent_back, answer(block_of(WORDS, WORDS_FIXED)))
    outcome = await run_on_report(model, candidates=4)

    note = model.calls[3].messages[-1].content
    assert note.startswith(f"Your code block is the same as the current code of {WORDS}")
    assert f"The test is right; the bug is in {REPORT} or {WORDS}. Change that code" in note
    assert f"the bug is in {REPORT}." not in note
    assert note.endswith(f"name that file on the block's first line, e.g. `# file: {WORDS}`.")
    assert isinstance(outcome, Paused)
    [change] = outcome.state.turn.pending
    assert isinstance(change, PreparedEdit) and change.path.endswith(WORDS)


async def test_the_module_sent_back_after_the_verdict_is_asked_about_the_files_beside_it() -> None:
    # One candidate: the verdict joins the task, so the note after the module sent back is the
    # runtime's own "find the line" note.
    model = ScriptedModel.of(answer(block_of(REPORT, REPORT_TEXT)), answer("I cannot."))
    await run_on_report(model, candidates=1)

    task, note = model.calls[0].messages[-1].content, model.calls[1].messages[-1].content
    assert f"the bug is in {REPORT} or {WORDS}. Change that code" in task
    assert note.startswith(f"Your code block is the same as the current code of {REPORT}")
    assert f"Find the line of {REPORT} or {WORDS} that causes the failure" in note
    assert note.endswith(f"e.g. `# file: {WORDS}`.")


async def test_a_candidate_retry_asks_for_a_fix_of_the_module_or_the_files_beside_it() -> None:
    wrong = REPORT_TEXT.replace("words'", "words!'")
    model = ScriptedModel.of(answer(block_of(REPORT, wrong)), answer(block_of(WORDS, WORDS_FIXED)))
    outcome = await run_on_report(model, candidates=4)

    request = model.calls[1].messages[-1].content
    assert f"Write a different fix of {REPORT} or {WORDS}: " in request
    assert request.endswith("Do not repeat a fix that failed.")
    assert isinstance(outcome, Paused)
    [change] = outcome.state.turn.pending
    assert isinstance(change, PreparedEdit) and change.checked == "passed"


async def test_a_function_of_a_file_beside_sent_without_its_name_is_that_files_edit() -> None:
    # corpus_multi 08_word_count: the fix of words.py's function, with no file line, was read
    # as report.py's code and refused (answers/code/owner.py).
    model = ScriptedModel.of(answer(f"```python\n{WORDS_FIXED}```"))
    outcome = await run_on_report(model, candidates=4)

    assert isinstance(outcome, Paused)
    [change] = outcome.state.turn.pending
    assert isinstance(change, PreparedEdit) and change.path.endswith(WORDS)
    assert "len(text.split())" in change.new_text and change.checked == "passed"
