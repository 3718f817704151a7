"""Candidate fixes: checked (by the runner, here scripted) before the turn is shown."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pytest

from rune_lsp.loop import AgentLoop, LoopConfig
from rune_lsp.loop.candidate_choice import Candidate, improves
from rune_lsp.loop.candidates import candidate_temperature
from rune_lsp.loop.events import CheckStarted, RunEvent, ToolRequested, ToolResulted
from rune_lsp.loop.records import CandidateStats, EditRecord
from rune_lsp.loop.resample import RESAMPLE_TEMPERATURES
from rune_lsp.loop.state import CheckReport, Finished, Paused, PreparedChange, PreparedEdit

from .fakes import ASKED, FakeExecutor, Hang, ScriptedModel, answer, approve_all, edit, read, turn

BUGGY = "def add(a, b):\n    return a - b\n"
#: The code as it is fails all three tests: no candidate fails more, the best is always shown.
FAILING = CheckReport(
    command="pytest -q", exit_code=1, output="E  assert -1 == 3\n3 failed", failures=3
)


def block(body: str) -> str:
    return f"Here is the fix.\n```python\ndef add(a, b):\n    return {body}\n```"


def verdict(failures: int) -> CheckReport:
    if failures == 0:
        return CheckReport(command="pytest -q", exit_code=0, output="3 passed", failures=0)
    return CheckReport(
        command="pytest -q",
        exit_code=1,
        output=f"E  wrong\n{failures} failed, {3 - failures} passed",
        failures=failures,
    )


@dataclass
class CandidateChecker:
    """The check before the first turn fails; a candidate's verdict is `judge(new_text)`."""

    judge: Callable[[str], CheckReport]
    command: str = "pytest -q"
    before: CheckReport = FAILING  # the verdict on the code as it is
    checked: list[str] = field(default_factory=list)
    gate: asyncio.Event | None = None  # a candidate's check waits for it when set

    async def check(self, edits: Sequence[EditRecord]) -> CheckReport:
        return self.before if not edits else verdict(0)

    async def check_changes(self, changes: Sequence[PreparedChange]) -> CheckReport:
        [change] = changes
        assert isinstance(change, PreparedEdit)
        self.checked.append(change.new_text)
        if self.gate is not None:
            await self.gate.wait()
        return self.judge(change.new_text)


def by_body(failures: dict[str, int]) -> Callable[[str], CheckReport]:
    def judge(new_text: str) -> CheckReport:
        [count] = [n for body, n in failures.items() if f"return {body}" in new_text]
        return verdict(count)

    return judge


def executor() -> FakeExecutor:
    tools = FakeExecutor()
    tools.files = {"app.py": BUGGY}
    return tools


async def start(
    model: ScriptedModel, checker: CandidateChecker, config: LoopConfig, **options: object
) -> Paused | Finished:
    loop = AgentLoop(model, executor(), config, **options)  # type: ignore[arg-type]
    return await loop.run("Fix add.", run_id="r", target="app.py", checker=checker)


async def test_the_first_candidate_fails_the_second_passes_and_only_it_is_shown() -> None:
    model = ScriptedModel.of(answer(block("a * b")), answer(block("a + b")))
    checker = CandidateChecker(by_body({"a * b": 2, "a + b": 0}))
    config = LoopConfig(candidates=4, temperature=0.2)
    outcome = await start(model, checker, config)

    assert isinstance(outcome, Paused)
    state = outcome.state
    [shown] = state.turn.pending
    assert isinstance(shown, PreparedEdit) and "a + b" in shown.new_text
    assert (shown.checked, shown.check_note) == ("passed", "passes `pytest -q`")
    assert state.candidates == CandidateStats(tried=2, checks_run=2, passed=1)
    assert state.iterations_used == 2
    # The history holds the passing candidate as the turn's answer, never the failing one.
    assert state.messages[-1].content == block("a + b")
    assert [call.name for call in state.messages[-1].tool_calls] == ["edit_file"]
    assert not any("a * b" in m.content for m in state.messages)
    # The second request: the history up to the turn, then the failed fix and its verdict,
    # no tools, sampled wider.
    request = model.calls[1]
    assert request.messages[:-1] == model.calls[0].messages
    told = request.messages[-1].content
    assert "Fix 1:" in told and "return a * b" in told and "2 failed, 1 passed" in told
    assert "failed (exit 1)" in told and "Write a different fix of app.py" in told
    assert request.tools == [] and request.temperature == candidate_temperature(0.2, 2) == 0.5
    assert model.calls[0].temperature is None  # the turn itself: the provider's own


async def test_the_first_candidates_calls_get_a_result_event_when_another_is_chosen() -> None:
    events: list[RunEvent] = []
    model = ScriptedModel.of(answer(block("a * b")), answer(block("a + b")))
    checker = CandidateChecker(by_body({"a * b": 2, "a + b": 0}))
    outcome = await start(model, checker, LoopConfig(candidates=4), on_event=events.append)

    assert isinstance(outcome, Paused)
    requested = [e.call.id for e in events if isinstance(e, ToolRequested)]
    resulted = {e.call.id: e.outcome for e in events if isinstance(e, ToolResulted)}
    waiting = {change.call_id for change in outcome.state.turn.pending}
    # Every announced call is either answered or the one waiting for review, never both.
    assert set(requested) == set(resulted) | waiting and not set(resulted) & waiting
    [replaced] = resulted.values()
    assert replaced.status == "skipped"
    assert replaced.content.startswith("replaced by candidate fix 2: passes `pytest -q`")
    # Not a call the model reads or the run result lists: the history holds candidate 2 only.
    assert not outcome.state.call_log


async def test_when_none_passes_the_one_failing_fewest_tests_is_proposed_and_says_so() -> None:
    model = ScriptedModel.of(
        answer(block("a * b")), answer(block("b - a")), answer(block("a + b + 1"))
    )
    checker = CandidateChecker(by_body({"a * b": 3, "b - a": 1, "a + b + 1": 2}))
    outcome = await start(model, checker, LoopConfig(candidates=3))

    assert isinstance(outcome, Paused)
    [shown] = outcome.state.turn.pending
    assert isinstance(shown, PreparedEdit) and "b - a" in shown.new_text
    assert shown.checked == "failed"
    assert shown.check_note == (
        "fails `pytest -q`: none of 3 candidate fixes passed it; "
        "this one fails the fewest tests (1; the code as it is fails 3)"
    )
    assert outcome.state.candidates == CandidateStats(tried=3, checks_run=3, passed=0)
    third = model.calls[2].messages[-1].content
    assert "Fix 1:" in third and "Fix 2:" in third  # every failure so far, in the request


async def test_a_best_candidate_no_better_than_the_code_says_so_in_the_review() -> None:
    model = ScriptedModel.of(answer(block("a * b")), answer(block("b - a")))
    checker = CandidateChecker(by_body({"a * b": 3, "b - a": 3}))
    outcome = await start(model, checker, LoopConfig(candidates=2))

    assert isinstance(outcome, Paused)
    [shown] = outcome.state.turn.pending
    assert shown.check_note == (
        "fails `pytest -q`: none of 2 candidate fixes passed it; "
        "this one fails the fewest tests (3, as many as the code as it is)"
    )


async def test_when_the_best_candidate_fails_more_tests_than_the_code_none_is_shown() -> None:
    model = ScriptedModel.of(answer(block("a * b")), answer(block("b - a")), answer("unused"))
    checker = CandidateChecker(by_body({"a * b": 3, "b - a": 2}))
    checker.before = verdict(1)  # the code as it is fails 1 of 3 tests
    outcome = await start(model, checker, LoopConfig(candidates=2))

    assert isinstance(outcome, Finished) and outcome.result.outcome == "incomplete"
    assert outcome.result.error == (
        "none of 2 candidate fixes passed `pytest -q`, and the best fails 2 tests, more than "
        "the 1 the code fails as it is: none was proposed"
    )
    assert outcome.result.edits == () and len(model.calls) == 2
    assert [c.status for c in outcome.result.tool_calls] == ["skipped"]  # paired, never shown


@pytest.mark.parametrize(
    "before",
    [
        verdict(2),  # the best fails as many tests as the code: no worse
        # Passing at the start (asked for a failing test, say), there is nothing to be worse
        # than: the best is shown for the user to decide.
        verdict(0),
    ],
    ids=["as-many-as-the-code", "check-passing-at-the-start"],
)
async def test_a_best_candidate_failing_no_more_tests_than_the_code_is_shown(
    before: CheckReport,
) -> None:
    model = ScriptedModel.of(answer(block("a * b")), answer(block("b - a")))
    checker = CandidateChecker(by_body({"a * b": 3, "b - a": 2}))
    checker.before = before
    outcome = await start(model, checker, LoopConfig(candidates=2))

    assert isinstance(outcome, Paused)
    [shown] = outcome.state.turn.pending
    assert isinstance(shown, PreparedEdit) and "b - a" in shown.new_text
    assert shown.checked == "failed"


async def test_a_count_taken_with_unsaved_buffers_is_no_measure_of_worse() -> None:
    model = ScriptedModel.of(answer(block("a * b")), answer(block("b - a")))
    checker = CandidateChecker(by_body({"a * b": 3, "b - a": 2}))
    checker.before = verdict(1).model_copy(update={"note": "unsaved editor buffers: app.py"})
    outcome = await start(model, checker, LoopConfig(candidates=2))

    assert isinstance(outcome, Paused) and outcome.state.failing_tests is None


def test_a_failing_candidate_improves_unless_it_counts_more_failures() -> None:
    def tried(report: CheckReport | None) -> Candidate:
        return Candidate(number=1, answer="", calls=(), changes=(), from_block=True, report=report)

    timed_out = CheckReport(command="pytest -q", timed_out=True)
    assert improves(tried(verdict(1)), 2) and improves(tried(verdict(2)), 2)
    assert not improves(tried(verdict(3)), 2)
    assert improves(tried(timed_out), 2)  # no count (or a copy the check cannot run in)
    assert improves(tried(verdict(3)), None) and improves(tried(verdict(3)), 0)
    assert improves(tried(None), 2)  # never checked: candidate 1 stands, unmarked


async def test_the_user_decides_on_the_chosen_candidate_as_before() -> None:
    model = ScriptedModel.of(answer(block("a * b")), answer(block("a + b")), answer("unused"))
    checker = CandidateChecker(by_body({"a * b": 2, "a + b": 0}))
    loop = AgentLoop(model, executor(), LoopConfig(candidates=4))
    paused = await loop.run("Fix add.", run_id="r", target="app.py", checker=checker)
    assert isinstance(paused, Paused)
    approve_all(paused.state)
    finished = await loop.resume(paused.state, checker=checker)
    assert isinstance(finished, Finished) and finished.result.outcome == "completed"
    [record] = finished.result.edits
    assert record.status == "applied"
    assert len(model.calls) == 2  # the passing check after the accept ended the run


async def test_one_candidate_behaves_exactly_as_before() -> None:
    model = ScriptedModel.of(answer(block("a * b")))
    checker = CandidateChecker(by_body({"a * b": 2}))
    outcome = await start(model, checker, LoopConfig(candidates=1))

    assert isinstance(outcome, Paused)
    [shown] = outcome.state.turn.pending
    assert isinstance(shown, PreparedEdit)
    assert (shown.checked, shown.check_note) == (None, "")
    assert checker.checked == [] and len(model.calls) == 1
    assert outcome.state.candidates == CandidateStats()


async def test_candidates_count_toward_the_iteration_budget() -> None:
    model = ScriptedModel.of(answer(block("a * b")), answer(block("b - a")), answer("unused"))
    checker = CandidateChecker(by_body({"a * b": 2, "b - a": 1}))
    outcome = await start(model, checker, LoopConfig(candidates=4, max_iterations=2))

    assert isinstance(outcome, Paused)
    assert outcome.state.iterations_used == 2 and len(model.calls) == 2
    assert outcome.state.candidates.tried == 2


async def test_a_candidate_identical_to_an_earlier_one_is_not_checked_again() -> None:
    model = ScriptedModel.of(answer(block("a * b")), answer(block("a * b")))
    checker = CandidateChecker(by_body({"a * b": 2}))
    outcome = await start(model, checker, LoopConfig(candidates=2))

    assert isinstance(outcome, Paused)
    assert outcome.state.candidates == CandidateStats(tried=2, checks_run=1, passed=0)
    assert len(checker.checked) == 1


async def test_a_turn_that_also_read_a_file_is_shown_unchecked() -> None:
    model = ScriptedModel.of(turn(read("app.py"), edit("app.py", "a - b", "a + b")))
    checker = CandidateChecker(by_body({"a + b": 0}))
    outcome = await start(model, checker, LoopConfig(candidates=4))

    assert isinstance(outcome, Paused)
    assert checker.checked == [] and outcome.state.turn.pending[0].checked is None  # type: ignore[union-attr]


async def test_an_answer_without_a_fix_is_a_tried_candidate_that_is_never_shown() -> None:
    model = ScriptedModel.of(
        answer(block("a * b")), answer("I am not sure what else to try."), answer(block("a + b"))
    )
    checker = CandidateChecker(by_body({"a * b": 2, "a + b": 0}))
    outcome = await start(model, checker, LoopConfig(candidates=3))

    assert isinstance(outcome, Paused)
    [shown] = outcome.state.turn.pending
    assert isinstance(shown, PreparedEdit) and shown.checked == "passed"
    assert outcome.state.candidates == CandidateStats(tried=3, checks_run=2, passed=1)
    assert "It could not be applied" in model.calls[2].messages[-1].content


async def test_with_overlap_the_next_request_runs_during_the_check_and_a_pass_cancels_it() -> None:
    events: list[RunEvent] = []
    model = ScriptedModel.of(answer(block("a + b")), Hang())
    gate = asyncio.Event()
    checker = CandidateChecker(by_body({"a + b": 0}), gate=gate)
    run = asyncio.ensure_future(
        start(model, checker, LoopConfig(candidates=3, overlap_checks=True), on_event=events.append)
    )
    await asyncio.wait_for(model.entered_hang.wait(), 10)  # asked while the check runs
    assert checker.checked and not run.done()
    gate.set()
    outcome = await asyncio.wait_for(run, 10)

    assert isinstance(outcome, Paused)
    [shown] = outcome.state.turn.pending
    assert isinstance(shown, PreparedEdit) and shown.checked == "passed"
    assert outcome.state.iterations_used == 2  # the cancelled request was made: it counts
    assert outcome.state.candidates == CandidateStats(tried=1, checks_run=1, passed=1)
    assert [e.candidate for e in events if isinstance(e, CheckStarted)] == [None, 1]


async def test_a_check_that_cannot_run_leaves_the_first_fix_unmarked_and_asks_no_more() -> None:
    def broken(new_text: str) -> CheckReport:
        raise OSError("no space left on device")

    model = ScriptedModel.of(answer(block("a * b")), answer("unused"))
    checker = CandidateChecker(broken)
    outcome = await start(model, checker, LoopConfig(candidates=4))

    assert isinstance(outcome, Paused)
    [shown] = outcome.state.turn.pending
    assert isinstance(shown, PreparedEdit) and "a * b" in shown.new_text
    assert (shown.checked, shown.check_note) == (None, "")
    assert len(model.calls) == 1
    assert outcome.state.candidates == CandidateStats(tried=1, checks_run=0, passed=0)


# --- the check verifies, it does not hint (issue 26) ---------------------------------------------


async def test_a_failing_check_is_kept_from_the_first_turn_and_judges_its_fix() -> None:
    model = ScriptedModel.of(answer(block("a + b")))
    checker = CandidateChecker(by_body({"a + b": 0}))
    outcome = await start(model, checker, LoopConfig(candidates=4))

    task = model.calls[0].messages[-1].content
    assert task.startswith("Fix add.") and "pytest" not in task and "assert -1" not in task
    assert isinstance(outcome, Paused)
    [shown] = outcome.state.turn.pending
    assert isinstance(shown, PreparedEdit) and shown.checked == "passed"
    assert outcome.state.check_failing is True


async def test_the_current_code_sent_back_hears_the_kept_check_once() -> None:
    same = f"```python\n{BUGGY}```"
    model = ScriptedModel.of(
        *[answer(same)] * ASKED,  # the first request, and asked again
        answer(f"It is right.\n```python\n{BUGGY}```"),
        answer(block("a + b")),
    )
    checker = CandidateChecker(by_body({"a + b": 0}))
    outcome = await start(model, checker, LoopConfig(candidates=4))

    assert all(call.messages == model.calls[0].messages for call in model.calls[:ASKED])
    first = model.calls[ASKED].messages[-1].content
    assert first.startswith(
        "Your code block is the same as the current code of app.py: it changes nothing.\n\n"
        "The check `pytest -q` failed (exit 1) on the current code."
    )
    assert "E  assert -1 == 3" in first
    assert first.endswith("holding the whole function you change.")  # the ask comes last
    second = model.calls[ASKED + 1].messages[-1].content
    assert "assert -1 == 3" not in second and "the check still fails" in second
    assert isinstance(outcome, Paused) and outcome.state.withheld_check is None


async def test_a_test_target_and_a_single_candidate_keep_the_check_in_the_task() -> None:
    for target, candidates in (("tests/test_app.py", 4), ("app.py", 1)):
        model = ScriptedModel.of(answer("I cannot tell."), answer("I cannot tell."))
        tools = executor()
        tools.files[target] = tools.files.get(target, "def test_add():\n    assert False\n")
        loop = AgentLoop(model, tools, LoopConfig(candidates=candidates))
        checker = CandidateChecker(by_body({}))
        await loop.run("Fix add.", run_id="r", target=target, checker=checker)

        task = model.calls[0].messages[-1].content
        assert "The check `pytest -q` failed (exit 1)" in task, (target, candidates)
        assert "E  assert -1 == 3" in task, (target, candidates)


async def test_the_current_code_sent_back_again_is_retried_wider_while_candidates_last() -> None:
    same = f"```python\n{BUGGY}```"
    model = ScriptedModel.of(*[answer(same)] * (ASKED + 2), answer(block("a + b")))
    checker = CandidateChecker(by_body({"a + b": 0}))
    outcome = await start(model, checker, LoopConfig(candidates=4, temperature=0.2))

    # Asked again (loop/resample.py), then told: word for word the same after each note, each
    # is a candidate that changed nothing, and the next is sampled wider (without candidates,
    # a repeat ends the notes: test_check_feed.py).
    assert [call.temperature for call in model.calls] == [None, 0.8, 1.0, 0.5, 0.8, 1.0]
    assert isinstance(outcome, Paused)
    [shown] = outcome.state.turn.pending
    assert isinstance(shown, PreparedEdit) and "a + b" in shown.new_text


async def test_the_current_code_sent_back_is_retried_no_more_than_candidates_allow() -> None:
    same = f"```python\n{BUGGY}```"
    model = ScriptedModel.of(*[answer(same)] * (ASKED + 2), answer("unused"))
    checker = CandidateChecker(by_body({}))
    outcome = await start(model, checker, LoopConfig(candidates=2))

    # Asked again, then two notes at least (as without candidates); then the answer stands.
    assert len(model.calls) == ASKED + 2 and isinstance(outcome, Finished)


async def test_the_current_code_sent_back_with_a_blank_line_less_is_no_candidate() -> None:
    # bench/effect corpus_multi 02_slugify: the module sent back without one blank line was
    # checked as a fix, failed, and was proposed as the best of four.
    laid_out = "```python\n# the sum\ndef add(a, b):\n\n    return a - b\n```"
    model = ScriptedModel.of(answer(laid_out), answer(block("a + b")))
    checker = CandidateChecker(by_body({"a + b": 0}))
    outcome = await start(model, checker, LoopConfig(candidates=4))

    # The code as it is: the same request is asked again, wider (loop/resample.py).
    first, again = model.calls
    assert again.messages == first.messages and again.temperature == RESAMPLE_TEMPERATURES[0]
    assert checker.checked == ["    return a + b"]  # never the layout change
    assert isinstance(outcome, Paused)
    [shown] = outcome.state.turn.pending
    assert isinstance(shown, PreparedEdit) and shown.checked == "passed"


async def test_a_later_candidate_that_changes_only_layout_is_not_checked() -> None:
    laid_out = "```python\ndef add(a, b):\n    return a - b  # still the sum\n```"
    model = ScriptedModel.of(answer(block("a * b")), answer(laid_out), answer(block("a + b")))
    checker = CandidateChecker(by_body({"a * b": 2, "a + b": 0}))
    outcome = await start(model, checker, LoopConfig(candidates=3))

    assert [("a * b" in text, "a + b" in text) for text in checker.checked] == [
        (True, False),
        (False, True),
    ]
    told = model.calls[2].messages[-1].content
    assert "It could not be applied: it changes only blank lines, comments or layout" in told
    assert isinstance(outcome, Paused)
    assert outcome.state.candidates == CandidateStats(tried=3, checks_run=2, passed=1)
