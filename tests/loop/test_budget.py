"""The iteration budget, enforced at construction and reported on every result.

See docs/interface.md#iteration-budget.
"""

from __future__ import annotations

import pytest

from rune_lsp.loop import AgentLoop, LoopConfig, LoopConfigError, ModelError
from rune_lsp.loop.state import Finished, Paused

from .fakes import FakeExecutor, ScriptedModel, answer, approve_all, edit, read, turn


@pytest.mark.parametrize("bad", [0, 9, -1, True, 2.5, "8"])
def test_max_iterations_outside_1_to_8_is_refused(bad: object) -> None:
    with pytest.raises(LoopConfigError, match="max_iterations must be an integer from 1 to 8"):
        LoopConfig(max_iterations=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("good", [1, 8])
def test_max_iterations_bounds_are_accepted(good: int, executor: FakeExecutor) -> None:
    loop = AgentLoop(ScriptedModel(), executor, LoopConfig(max_iterations=good))
    assert loop.config.max_iterations == good


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"repeat_warn_at": 1}, "repeat_warn_at"),
        ({"repeat_warn_at": 3, "repeat_block_at": 3}, "repeat_block_at"),
        ({"tool_output_cap": 10}, "tool_output_cap"),
    ],
)
def test_other_config_values_are_validated(options: dict[str, int], field: str) -> None:
    with pytest.raises(LoopConfigError, match=field):
        LoopConfig(**options)  # type: ignore[arg-type]


def test_loop_config_error_is_a_value_error() -> None:
    assert issubclass(LoopConfigError, ValueError)


async def test_one_model_call_is_one_iteration(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(turn(read("a.py")), turn(read("b.py")), answer("Fixed."))
    outcome = await AgentLoop(model, executor, LoopConfig()).run("fix it")
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "completed"
    assert len(model.calls) == 3
    assert outcome.result.iterations_used == 3
    assert outcome.result.iteration_budget == 8
    assert [record.iteration for record in outcome.state.turns] == [1, 2, 3]
    assert [record.iteration for record in outcome.state.call_log] == [1, 2]


async def test_iteration_limit_fails_the_run(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(*(turn(read(f"f{i}.py")) for i in range(10)))
    outcome = await AgentLoop(model, executor, LoopConfig(max_iterations=2)).run("loop")
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "failed"
    assert outcome.result.error == "iteration limit reached (2/2) before a final answer"
    assert outcome.result.iterations_used == 2
    assert len(model.calls) == 2


async def test_failure_before_the_loop_reports_zero_iterations(executor: FakeExecutor) -> None:
    class Unreachable(ScriptedModel):
        async def capabilities(self):  # type: ignore[no-untyped-def]
            raise ModelError("cannot reach http://127.0.0.1:11434")

    outcome = await AgentLoop(Unreachable(), executor, LoopConfig(max_iterations=5)).run("x")
    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "failed"
    assert outcome.result.error == "cannot reach http://127.0.0.1:11434"
    assert (outcome.result.iterations_used, outcome.result.iteration_budget) == (0, 5)


async def test_failure_inside_the_loop_reports_iterations(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(turn(read("a.py")), ModelError("model crashed"))
    outcome = await AgentLoop(model, executor, LoopConfig(max_iterations=4)).run("x")
    assert isinstance(outcome, Finished)
    assert (outcome.result.iterations_used, outcome.result.iteration_budget) == (2, 4)


async def test_pause_reports_iterations(executor: FakeExecutor) -> None:
    model = ScriptedModel.of(turn(read("a.py")), turn(edit("a.py")))
    outcome = await AgentLoop(model, executor, LoopConfig(max_iterations=6)).run("x")
    assert isinstance(outcome, Paused)
    assert (outcome.iterations_used, outcome.iteration_budget) == (2, 6)
    assert outcome.state.iterations_used == 2


async def test_resumed_run_keeps_counting_against_the_same_budget(
    executor: FakeExecutor,
) -> None:
    model = ScriptedModel.of(turn(edit("a.py")), turn(edit("b.py")), answer())
    loop = AgentLoop(model, executor, LoopConfig(max_iterations=2))
    paused = await loop.run("x")
    assert isinstance(paused, Paused)
    approve_all(paused.state)
    again = await loop.resume(paused.state)
    assert isinstance(again, Paused)
    approve_all(again.state)
    final = await loop.resume(again.state)
    assert isinstance(final, Finished)
    assert final.result.outcome == "failed"
    assert "iteration limit" in (final.result.error or "")
    assert final.result.iterations_used == 2
