"""A pending file written before the turn in progress became `RunState.turn` still resumes.

The fixture is a real file written by `PendingStore` at that time (a run interrupted with the
first of its two edits approved and the second still in review), its workspace root replaced
by `{ROOT}`.
"""

from __future__ import annotations

import json
from pathlib import Path

from rune_lsp.loop.state import Approve, Finished, RunState
from tests.loop.fakes import ScriptedModel, answer
from tests.runner.conftest import Rig

FIXTURE = Path(__file__).parent / "fixtures" / "pending_flat_turn.json"


def _store_old_file(rig: Rig) -> None:
    text = FIXTURE.read_text(encoding="utf-8").replace("{ROOT}", str(rig.root))
    assert "turn_calls" in json.loads(text)["state"]  # the old shape, as written then
    path = rig.pending.path_for("run-old")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


async def test_an_old_pending_file_loads_and_resumes(rig: Rig) -> None:
    _store_old_file(rig)
    record = rig.pending.load("run-old")
    assert record is not None
    state = record.state
    turn = state.turn
    assert [call.id for call in turn.calls] == ["call_1", "call_2", "call_3"]
    assert list(turn.results) == ["call_1"]
    assert [change.edit_id for change in turn.pending] == ["run-old-edit-1", "run-old-edit-2"]
    assert turn.decisions == {"run-old-edit-1": Approve()}
    assert [change.edit_id for change in turn.undecided] == ["run-old-edit-2"]
    assert state.edits[0].status == "pending" and state.call_log[0].call_id == "call_1"

    model = ScriptedModel.of(answer("Fixed add() and wrote the note."))
    turn.decide("run-old-edit-2", Approve())
    outcome = await rig.driver(model).loop.resume(state)

    assert isinstance(outcome, Finished)
    assert outcome.result.outcome == "completed"
    assert outcome.result.answer == "Fixed add() and wrote the note."
    assert [(e.edit_id, e.status) for e in outcome.result.edits] == [
        ("run-old-edit-1", "applied"),
        ("run-old-edit-2", "applied"),
    ]
    assert (rig.root / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert (rig.root / "NOTES.md").read_text() == "add() adds.\n"
    results = [m for m in outcome.state.messages if m.role == "tool"]
    assert [m.tool_call_id for m in results] == ["call_1", "call_2", "call_3"]
    assert results[0].content == "   1 | def add(a, b):\n   2 |     return a - b"
    assert [r.call_id for r in outcome.state.call_log] == ["call_1", "call_2", "call_3"]
    assert model.calls[0].messages[-1].tool_call_id == "call_3"
    assert outcome.state.turn.calls == [] and outcome.state.turn.pending == []


def test_the_new_shape_round_trips_without_the_old_keys(rig: Rig) -> None:
    _store_old_file(rig)
    record = rig.pending.load("run-old")
    assert record is not None
    saved = json.loads(record.state.model_dump_json())
    assert not {"turn_calls", "turn_results", "pending", "decisions"} & saved.keys()
    assert RunState.model_validate(saved) == record.state
