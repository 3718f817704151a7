"""The check command's part in a run: once before the first model turn, again after edits
land, and the search for a passing candidate fix before a turn's changes are shown.

`loop/runtime.py` decides when each happens; this module runs the check through the `Checker`
port, hands its report to `loop/proposals.py` (which words it for the model), and starts the
candidate search of `loop/candidates.py`. Without a checker every step is a no-op.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rune_lsp.loop.candidates import CandidateSearch, searches, verifies
from rune_lsp.loop.config import LoopConfig
from rune_lsp.loop.events import CheckStarted, EventEmitter, progress_of
from rune_lsp.loop.model_call import ModelCalls
from rune_lsp.loop.normalize import IdAllocator
from rune_lsp.loop.ports import Checker, ToolDefinition, ToolExecutor
from rune_lsp.loop.proposals import add_check_after_edits, add_first_check, fixed_answer
from rune_lsp.loop.state import CheckReport, RunState
from rune_lsp.loop.stop import describe


@dataclass
class RunChecks:
    """The checks of one run (or one resumption of it)."""

    state: RunState
    config: LoopConfig
    checker: Checker | None
    executor: ToolExecutor
    model_calls: ModelCalls
    events: EventEmitter
    new_ids: Callable[[], IdAllocator]
    reason_of: Callable[[str], str]

    async def first(self, ran: CheckReport | None = None) -> None:
        """Before the first turn: the check's verdict joins the history. `ran`: the report of
        the check the front end ran a moment ago, taken as it is (not run, not announced again)."""
        report = ran if ran is not None and self.checker is not None else await self._run()
        if report is not None:
            add_first_check(self.state, report, verifies=verifies(self.config, self.checker))

    async def after_edits(self) -> str | None:
        """After edits landed: the run's final answer when the check now passes after a
        failing start (the run is done), else None (the run goes on)."""
        report = await self._run()
        if report is None or not await add_check_after_edits(self.executor, self.state, report):
            return None
        return fixed_answer(self.state, report)

    async def candidates(self, tools: Mapping[str, ToolDefinition]) -> None:
        """Before the turn's edits are shown: with a check and `candidates` > 1, the first of
        the model's candidate fixes that passes in a scratch copy (loop/candidates.py)."""
        if self.checker is None or not searches(self.config, self.state, self.checker):
            return
        self.state.withheld_check = None  # a retry shows each fix's own check
        await CandidateSearch(
            state=self.state,
            config=self.config,
            checker=self.checker,
            executor=self.executor,
            model_calls=self.model_calls,
            tools=tools,
            events=self.events,
            new_ids=self.new_ids,
            reason_of=self.reason_of,
        ).run()

    async def _run(self) -> CheckReport | None:
        if self.checker is None:
            return None
        await self.events.emit(
            CheckStarted(**progress_of(self.state), command=self.checker.command)
        )
        try:
            return await self.checker.check(tuple(self.state.edits))
        except Exception as exc:  # the run goes on without the check's help
            return CheckReport(command=self.checker.command, output=describe(exc))
