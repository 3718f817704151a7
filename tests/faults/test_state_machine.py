"""A state machine over one live server: documents opened and typed into, runs started and
cancelled, pending edits accepted and rejected in any order.

Invariants: the disk changes only through accepted edits; every run ends with a typed outcome
and a receipt within a bound; nothing outlives its run (no review diagnostics for finished
runs, no active run at the end: `rune.cancel` on every finished run id says `false`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test
from pygls.exceptions import JsonRpcInvalidParams

from tests.doubles.model_double import Call, RecordedRequest, Reply, Scripted
from tests.e2e.editor import RUN_WAIT, WAIT, FakeEditor, FixRequest, Typing
from tests.e2e.scenario import disk
from tests.e2e.wire import WireResult
from tests.faults.harness import ThreadedEditor
from tests.faults.receipts import edit_id_of, stored_receipt

T = TypeVar("T")
FILES_PER_EXAMPLE = 2
LINES = 3
POLL = 0.01
_LINE = re.compile(r"^v(\d+) = (\d+)$", re.MULTILINE)


@dataclass(frozen=True)
class Proposal:
    """The edit the scripted model proposes for a file: one whole line replaced."""

    old: str
    new: str


class Model:
    """The scripted model: read the file, propose the planned edit, then finish. It answers
    each conversation by the file it is about, so concurrent runs do not share a script."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._plans: dict[str, Proposal] = {}

    def plan(self, name: str, proposal: Proposal) -> None:
        with self._lock:
            self._plans[name] = proposal

    def __call__(self, request: RecordedRequest) -> Scripted:
        messages = request.body.get("messages", []) if isinstance(request.body, dict) else []
        opening = json.dumps(messages[:2])
        with self._lock:
            named = [n for n in self._plans if re.search(rf"\b{re.escape(n)}\b", opening)]
            proposal = self._plans.get(named[0]) if len(named) == 1 else None
        if proposal is None:
            return Reply(text="nothing to do")
        answered = sum(1 for m in messages if m.get("role") == "tool")
        if answered == 0:
            return Reply(tool_calls=(Call("read_file", {"path": named[0]}),))
        if answered == 1:
            arguments = {"path": named[0], "old_text": proposal.old, "new_text": proposal.new}
            return Reply(tool_calls=(Call("edit_file", arguments),))
        return Reply(text=f"done with {named[0]}")


@dataclass
class Run:
    name: str
    request: FixRequest
    result: WireResult | None = None


class Fixture:
    """What all examples share: the server, the editor and the scripted model."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.model = Model()
        self.harness = ThreadedEditor(workspace, self.model)
        self.examples = itertools.count()
        self.finished: list[WireResult] = []
        self.accepts = 0  # rune.acceptEdit commands sent, over all examples


class ServerMachine(RuleBasedStateMachine):
    fixture: ClassVar[Fixture]

    def __init__(self) -> None:
        super().__init__()
        fixture = self.fixture
        example = next(fixture.examples)
        self.names = [f"ex{example}_f{i}.py" for i in range(FILES_PER_EXAMPLE)]
        for name in self.names:
            text = "".join(f"v{line} = 0\n" for line in range(LINES))
            (fixture.workspace / name).write_text(text, encoding="utf-8")
        self.expected_disk = {name: disk(fixture.workspace / name) for name in self.names}
        self.runs: list[Run] = []
        self.applied: set[str] = set()  # edit ids whose accept answered `applied`
        self.counter = itertools.count(1)

    # --- plumbing ---------------------------------------------------------------------------

    @property
    def editor(self) -> FakeEditor:
        return self.fixture.harness.editor

    def run(self, coroutine: Any) -> Any:
        return self.fixture.harness.run(coroutine)

    def on_loop(self, action: Callable[[], T]) -> T:
        """Run a sync editor action on the editor's loop (its pipes and events live there)."""

        async def call() -> T:
            return action()

        result: T = self.run(call())
        return result

    def view(self, name: str) -> str:
        """The text the server works on: the buffer when open, else the disk."""
        buffer = self.editor.buffers.get(self.editor.uri(name))
        return buffer.text if buffer is not None else self.expected_disk[name] or ""

    def in_flight(self) -> list[Run]:
        return [run for run in self.runs if run.result is None]

    def collect(self) -> None:
        for run in self.in_flight():
            task = run.request.task
            if task.done():
                run.result = WireResult.model_validate(task.result())
                self.fixture.finished.append(run.result)

    async def _settle(self) -> None:
        """Until every run either ended or waits for review of an edit on its document."""

        def quiet() -> bool:
            self.collect()
            return all(
                self.editor.rune_diagnostics(self.editor.uri(run.name)) for run in self.in_flight()
            )

        # Polled: a run's answer wakes nothing `FakeEditor.wait_for` listens to.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + RUN_WAIT
        while not quiet():
            assert loop.time() < deadline, "a run neither ended nor asked for review"
            await asyncio.sleep(POLL)

    def settle(self) -> None:
        self.run(self._settle())

    # --- rules ------------------------------------------------------------------------------

    @rule(index=st.integers(0, FILES_PER_EXAMPLE - 1))
    def open_document(self, index: int) -> None:
        name = self.names[index]
        if self.editor.uri(name) not in self.editor.buffers:
            self.on_loop(lambda: self.editor.open(name))

    @rule(index=st.integers(0, FILES_PER_EXAMPLE - 1), line=st.integers(0, LINES - 1))
    def type_into(self, index: int, line: int) -> None:
        name = self.names[index]
        if self.editor.uri(name) not in self.editor.buffers:
            return
        current = dict(_LINE.findall(self.view(name)))[str(line)]
        typed = f"{next(self.counter)}00"
        typing = Typing(name, f"v{line} = {current}\n", f"v{line} = {typed}\n")
        self.on_loop(lambda: self.editor.type(typing))

    @rule(index=st.integers(0, FILES_PER_EXAMPLE - 1), line=st.integers(0, LINES - 1))
    def start_run(self, index: int, line: int) -> None:
        name = self.names[index]
        current = dict(_LINE.findall(self.view(name)))[str(line)]
        proposal = Proposal(f"v{line} = {current}\n", f"v{line} = {next(self.counter)}\n")
        self.fixture.model.plan(name, proposal)

        self.runs.append(Run(name, self.on_loop(lambda: self.editor.start_fix(name))))
        self.settle()

    @rule(pick=st.integers(0, 7))
    def cancel_run(self, pick: int) -> None:
        self.collect()
        live = self.in_flight()
        if not live:
            return
        run = live[pick % len(live)]
        run_id = self.active_run_id(run.name)
        answer = self.run(self.editor.command("rune.cancel", {"runId": run_id}))
        assert answer in ({"cancelled": True}, {"cancelled": False})
        self.settle()

    # Accept first: Hypothesis starts from the simplest choices, and accepting is what moves
    # the disk.
    @rule(pick=st.integers(0, 7), verdict=st.sampled_from(["accept", "reject"]))
    def review(self, pick: int, verdict: str) -> None:
        accept = verdict == "accept"
        self.settle()
        live = [run for run in self.in_flight() if self.pending_edit(run.name) is not None]
        if not live:
            return
        run = live[pick % len(live)]
        edit_id = self.pending_edit(run.name)
        assert edit_id is not None
        command = "rune.acceptEdit" if accept else "rune.rejectEdit"
        self.fixture.accepts += accept
        try:
            answer = self.run(self.editor.command(command, {"editId": edit_id}))
        except JsonRpcInvalidParams:
            return  # the run ended between the look and the answer: nothing may have changed
        if accept and answer == {"status": "applied"}:
            self.applied.add(edit_id)
            self.expected_disk[run.name] = self.editor.text(run.name)  # saved on apply
        else:
            assert answer in ({"status": "rejected"}, {"status": "stale"}), answer
        self.settle()

    # --- lookups ----------------------------------------------------------------------------

    def active_run_id(self, name: str) -> str:
        """The run id of the newest run on `name` whose progress has not ended."""
        reports = self.editor.client.progress_reports
        for token, items in reversed(list(reports.items())):
            titles = [getattr(r, "title", None) for r in items]
            if titles and titles[0] == f"Rune: {name}":
                return str(token).removeprefix("rune/")
        raise AssertionError(f"no progress for a run on {name}")

    def pending_edit(self, name: str) -> str | None:
        """The edit id behind the review diagnostic on `name`, None when there is none."""
        found: str | None = self.run(self._pending_edit(self.editor.uri(name)))
        return found

    async def _pending_edit(self, uri: str) -> str | None:
        # The editor's diagnostics lag the server by a message: one just withdrawn (its run
        # was superseded or cancelled) has no Accept action any more. Ask again until the
        # diagnostics catch up, within a bound.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT
        while diagnostics := self.editor.rune_diagnostics(uri):
            actions = await self.editor.code_actions(uri, diagnostics[0].range, diagnostics[:1])
            for action in actions:
                if action.title == "Accept edit" and action.command and action.command.arguments:
                    return edit_id_of(action.command.arguments)
            assert loop.time() < deadline, f"a review diagnostic without actions on {uri}"
            await asyncio.sleep(POLL)
        return None

    def no_review(self, uri: str) -> bool:
        return not self.editor.rune_diagnostics(uri)

    # --- invariants -------------------------------------------------------------------------

    @invariant()
    def disk_changes_only_through_accepted_edits(self) -> None:
        for name in self.names:
            assert disk(self.fixture.workspace / name) == self.expected_disk[name], name
        assert len(self.editor.apply_records) <= self.fixture.accepts

    def teardown(self) -> None:
        # Reject whatever still waits, until every run has ended.
        for _ in range(8):
            self.settle()
            live = self.in_flight()
            if not live:
                break
            for run in live:
                edit_id = self.pending_edit(run.name)
                if edit_id is not None:
                    with contextlib.suppress(JsonRpcInvalidParams):  # it ended meanwhile
                        self.run(self.editor.command("rune.rejectEdit", {"editId": edit_id}))
        assert self.in_flight() == [], "runs that never ended"
        results = [run.result for run in self.runs if run.result is not None]
        applied = {e.edit_id for result in results for e in result.edits if e.status == "applied"}
        assert applied == self.applied, results
        for run in self.runs:
            assert run.result is not None
            stored_receipt(self.editor.state_dir, run.result)
            cancel = self.editor.command("rune.cancel", {"runId": run.result.run_id})
            assert self.run(cancel) == {"cancelled": False}
        for name in {run.name for run in self.runs}:
            uri = self.editor.uri(name)
            self.run(self.editor.wait_for(partial(self.no_review, uri), f"no review on {uri}"))
        self.disk_changes_only_through_accepted_edits()


@pytest.fixture
def fixture(tmp_path: Path) -> Iterator[Fixture]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    shared = Fixture(workspace)
    with shared.harness:
        yield shared


def test_runs_reviews_and_typing_keep_the_invariants(fixture: Fixture) -> None:
    ServerMachine.fixture = fixture
    run_state_machine_as_test(
        ServerMachine,
        settings=settings(
            max_examples=40,  # 15 never reached an accept: the first examples are the simplest
            stateful_step_count=12,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
    assert fixture.finished, "no run was ever started"
    outcomes = {result.outcome for result in fixture.finished}
    assert outcomes <= {"completed", "incomplete", "failed", "cancelled", "superseded"}
