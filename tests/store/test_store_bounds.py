from __future__ import annotations

import json
from pathlib import Path

from store_samples import STARTED, plain_receipt, run_result, run_state

from rune_lsp.loop.messages import Usage
from rune_lsp.loop.records import CallRecord, EditRecord, TurnRecord
from rune_lsp.store.bounds import MIN_KEPT, Slot, fit_budget
from rune_lsp.store.receipt import CheckRecord as Check
from rune_lsp.store.receipt import Receipt
from rune_lsp.store.receipt_builder import (
    ANSWER_CAP,
    DIFF_CAP,
    DIGEST_CAP,
    MAX_CALLS,
    MAX_RECEIPT_BYTES,
    OUTPUT_TAIL_CAP,
    build_receipt,
)
from rune_lsp.store.receipts import ReceiptStore


def _slots(values: dict[str, str]) -> list[Slot]:
    def slot(key: str) -> Slot:
        return Slot(key, lambda: values[key], lambda text: values.__setitem__(key, text))

    return [slot(key) for key in values]


def test_fit_budget_shortens_the_longest_first() -> None:
    values = {"big": "b" * 10_000, "medium": "m" * 3_000, "small": "s" * 100}
    limit, clipped = fit_budget(_slots(values), excess=6_000)
    assert clipped == ["big"]
    assert values["small"] == "s" * 100 and values["medium"] == "m" * 3_000
    assert 3_000 < limit < 4_000 and len(values["big"]) <= 4_100


def test_fit_budget_spreads_over_equal_fields() -> None:
    values = {str(i): "x" * 1_000 for i in range(10)}
    _, clipped = fit_budget(_slots(values), excess=5_000)
    assert len(clipped) == 10
    assert sum(len(v) for v in values.values()) <= 5_000


def test_fit_budget_stops_at_the_floor() -> None:
    values = {"a": "a" * 200}
    limit, clipped = fit_budget(_slots(values), excess=10_000)
    assert limit == MIN_KEPT and clipped == ["a"] and values["a"].startswith("a" * MIN_KEPT)
    assert fit_budget(_slots({"a": "a"}), excess=0) == (1, [])


def _huge_receipt(size: int, answer_size: int) -> Receipt:
    state = run_state()
    state.call_log = [
        CallRecord(
            call_id=f"call-{i}",
            name="read_file",
            arguments=json.dumps({"path": "x" * size}),
            status="ok",
            digest="d" * size,
            iteration=1,
            started_at=0.0,
            duration_ms=1.0,
        )
        for i in range(MAX_CALLS * 3)
    ]
    state.turns = [TurnRecord(iteration=i, usage=Usage()) for i in range(500)]
    state.diffs = {f"edit-{i}": "+" + "y" * size for i in range(150)}
    edits = tuple(
        EditRecord(edit_id=f"edit-{i}", tool="edit_file", path="p" * size, status="applied")
        for i in range(150)
    )
    result = run_result().model_copy(update={"answer": "A" * answer_size, "edits": edits})
    return build_receipt(
        result,
        secrets=[],
        provider="ollama",
        model="m",
        base_url="http://127.0.0.1:11434",
        started_at=STARTED,
        ended_at=STARTED,
        state=state,
        check=Check(command="make check", exit_code=1, stdout_tail="o" * size + "THE END"),
        task="t" * size,
    )


def test_huge_run_gives_a_bounded_receipt_with_notes(tmp_path: Path) -> None:
    built = _huge_receipt(size=20_000, answer_size=10_000_000)
    text = built.to_json()
    assert len(text.encode("utf-8")) <= MAX_RECEIPT_BYTES
    assert len(built.tool_calls) == MAX_CALLS
    assert [call.call_id for call in built.tool_calls[-2:]] == ["call-298", "call-299"]
    assert built.result.answer.startswith("AAAA") and "elided" in built.result.answer
    assert built.check is not None and built.check.stdout_tail.endswith("THE END")
    assert any("200 of 300 tool calls left out" in note for note in built.notes)
    assert any("toolCalls[*].digest fields clipped" in note for note in built.notes)
    assert any("answer clipped from 10000000" in note for note in built.notes)
    assert any(f"over {MAX_RECEIPT_BYTES} bytes" in note for note in built.notes)
    assert len(built.notes) <= 20
    # Still a valid receipt on disk, and the bound holds there too.
    store = ReceiptStore(tmp_path)
    path = store.write(built)
    assert path.stat().st_size <= MAX_RECEIPT_BYTES
    assert store.load("run-1") is not None


def test_per_field_caps_apply_below_the_total_budget() -> None:
    # Few enough large fields that caps alone decide: one answer, one diff, one digest.
    state = run_state()
    state.call_log[0] = state.call_log[0].model_copy(update={"digest": "d" * 50_000})
    state.diffs["edit-1"] = "+" + "y" * 50_000
    built = plain_receipt(
        state,
        result=run_result().model_copy(update={"answer": "A" * 50_000}),
        check=Check(command="c", exit_code=1, stdout_tail="o" * 50_000 + "THE END"),
    )
    assert built.result.answer.startswith("A" * ANSWER_CAP)
    assert len(built.result.answer) < ANSWER_CAP + 100
    assert len(built.tool_calls[0].digest) < DIGEST_CAP + 100
    assert len(built.edits[0].diff) < DIFF_CAP + 100
    assert built.check is not None and len(built.check.stdout_tail) < OUTPUT_TAIL_CAP + 100
    assert built.check.stdout_tail.endswith("THE END")
    assert not any("bytes:" in note for note in built.notes)  # the total budget was not needed
    assert len(built.to_json().encode("utf-8")) <= MAX_RECEIPT_BYTES


def test_small_receipts_are_untouched() -> None:
    built = plain_receipt(run_state())
    assert built.notes == ()
    assert built.result.answer == run_result().answer
