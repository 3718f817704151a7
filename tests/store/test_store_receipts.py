from __future__ import annotations

import json
import logging
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import get_args

import pytest
from store_samples import CHECK, DIFF, STARTED, receipt, run_result, run_state

from rune_lsp.loop.records import Outcome
from rune_lsp.store import receipts
from rune_lsp.store.markdown import render_receipt
from rune_lsp.store.receipt import Receipt
from rune_lsp.store.receipt_builder import build_receipt
from rune_lsp.store.receipts import ReceiptStore
from rune_lsp.store.runids import InvalidRunIdError


@pytest.mark.parametrize("outcome", get_args(Outcome))
def test_receipt_for_each_outcome_round_trips(tmp_path: Path, outcome: Outcome) -> None:
    store = ReceiptStore(tmp_path)
    built = receipt(outcome, run_id=f"run-{outcome}")
    path = store.write(built)

    assert path == tmp_path / "receipts" / f"run-{outcome}.json"
    loaded = store.load(f"run-{outcome}")
    assert loaded is not None
    assert loaded.outcome == outcome
    assert loaded.result.receipt == str(path)  # the stored result points at its receipt
    assert loaded == built.model_copy(
        update={"result": built.result.model_copy(update={"receipt": str(path)})}
    )


def test_receipt_holds_the_run(tmp_path: Path) -> None:
    built = receipt("completed")
    assert built.run_id == "run-1"
    assert (built.provider, built.model, built.base_url) == (
        "openai",
        "qwen3:14b",
        "http://127.0.0.1:8080/v1",
    )
    assert [call.name for call in built.tool_calls] == ["read_file", "edit_file"]
    assert built.tool_calls[1].duration_ms == 1200.0
    assert built.tool_calls[0].digest.startswith("def add")
    assert [(e.edit_id, e.status, e.diff) for e in built.edits] == [("edit-1", "applied", DIFF)]
    assert [t.prompt_tokens for t in built.turns] == [900, 1000]
    assert (built.prompt_tokens, built.completion_tokens) == (1900, 100)
    # Only the second turn's server said what it reused from its prompt cache.
    assert [t.cached_tokens for t in built.turns] == [None, 880]
    assert built.cached_tokens == 880
    assert '"cachedTokens": 880' in built.to_json()
    assert built.check == CHECK and built.check.passed
    assert (built.started_at, built.ended_at) == (STARTED, STARTED.replace(second=42))
    assert built.notes == ()


def test_json_is_camel_case_like_the_contract() -> None:
    data = json.loads(receipt().to_json())
    assert data["result"]["runId"] == "run-1"
    assert data["result"]["iterationBudget"] == 8
    assert data["result"]["edits"][0]["editId"] == "edit-1"
    assert data["toolCalls"][0]["durationMs"] == 3.5
    assert data["check"]["exitCode"] == 0 and data["check"]["stdoutTail"]
    assert data["baseUrl"] == "http://127.0.0.1:8080/v1"
    assert "startedAt" in data and "tool_calls" not in data


def test_receipt_without_state_or_check() -> None:
    built = build_receipt(
        run_result("cancelled"),
        secrets=[],
        provider="ollama",
        model="m",
        base_url="http://127.0.0.1:11434",
        started_at=1_740_830_400.0,  # epoch seconds are accepted too
        ended_at=datetime(2025, 3, 1, 12, 0, 5),  # naive: taken as UTC
        state=None,
    )
    assert built.tool_calls == () and built.turns == () and built.check is None
    assert built.edits[0].diff == ""  # no state, no recorded diff
    assert built.prompt_tokens is None
    assert built.started_at == datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
    assert built.ended_at.tzinfo is not None


def test_failed_check_is_not_passed() -> None:
    failed = CHECK.model_copy(update={"exit_code": 1})
    timed_out = CHECK.model_copy(update={"exit_code": None, "timed_out": True})
    assert not failed.passed and not timed_out.passed


def test_load_missing_and_corrupt(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = ReceiptStore(tmp_path)
    assert store.load("never") is None
    store.directory.mkdir(parents=True)
    (store.directory / "bad.json").write_text('{"result": ')
    with caplog.at_level(logging.WARNING):
        assert store.load("bad") is None
    assert "corrupt" in caplog.text


@pytest.mark.parametrize("run_id", ["../escape", "a/b", "", ".hidden", "x" * 200, "a..b"])
def test_unsafe_run_ids_are_refused(tmp_path: Path, run_id: str) -> None:
    store = ReceiptStore(tmp_path)
    with pytest.raises(InvalidRunIdError, match="invalid run id"):
        store.load(run_id)
    with pytest.raises(InvalidRunIdError):
        store.write(receipt(run_id=run_id))


def _age(path: Path, seconds_ago: float) -> None:
    stamp = time.time() - seconds_ago
    os.utime(path, (stamp, stamp))


def test_list_is_newest_first(tmp_path: Path) -> None:
    store = ReceiptStore(tmp_path)
    for age, run_id in ((30, "run-a"), (10, "run-b"), (20, "run-c")):
        _age(store.write(receipt(run_id=run_id)), age)
    (store.directory / "run-b.md").write_text("# rendered")
    assert [entry.run_id for entry in store.list()] == ["run-b", "run-c", "run-a"]
    assert store.list()[0].path == store.receipt_path("run-b")


def test_prune_by_count_removes_oldest_first(tmp_path: Path) -> None:
    store = ReceiptStore(tmp_path, max_count=3)
    for index in range(5):
        _age(store.write(receipt(run_id=f"run-{index}")), 100 - index)
    # Each write prunes; the two oldest are gone, with their Markdown.
    assert [entry.run_id for entry in store.list()] == ["run-4", "run-3", "run-2"]
    assert sorted(p.name for p in store.directory.glob("*.md")) == [
        "run-2.md",
        "run-3.md",
        "run-4.md",
    ]


def test_prune_by_age(tmp_path: Path) -> None:
    store = ReceiptStore(tmp_path, max_age_days=1)
    paths = {run_id: store.write(receipt(run_id=run_id)) for run_id in ("old-1", "old-2", "fresh")}
    for run_id, days in (("old-1", 3), ("old-2", 2), ("fresh", 0.5)):
        _age(paths[run_id], days * 86_400)
    assert store.prune() == ["old-1", "old-2"]
    assert [entry.run_id for entry in store.list()] == ["fresh"]


def test_prune_by_age_spares_the_receipt_just_written(tmp_path: Path) -> None:
    store = ReceiptStore(tmp_path, max_age_days=1)
    _age(store.write(receipt(run_id="old")), 3 * 86_400)
    assert store.prune() == []
    assert ReceiptStore(tmp_path, max_age_days=1).prune() == ["old"]


def test_prune_never_removes_the_receipt_just_written(tmp_path: Path) -> None:
    store = ReceiptStore(tmp_path, max_count=1)
    store.write(receipt(run_id="newer"))
    # Written last, but its clock says older than the other one (e.g. a clock change).
    _age(store.write(receipt(run_id="older")), 3600)
    assert [entry.run_id for entry in store.list()] == ["older"]


def test_prune_reports_oldest_first(tmp_path: Path) -> None:
    store = ReceiptStore(tmp_path, max_count=10)
    for index in range(4):
        _age(store.write(receipt(run_id=f"run-{index}")), 100 - index)
    tight = ReceiptStore(tmp_path, max_count=1)
    assert tight.prune() == ["run-0", "run-1", "run-2"]


def test_a_write_lists_the_directory_only_when_a_prune_is_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ReceiptStore(tmp_path, max_count=3)
    listings: list[int] = []
    original = store.list
    monkeypatch.setattr(store, "list", lambda: listings.append(1) or original())
    for index in range(3):
        store.write(receipt(run_id=f"run-{index}"))
    assert len(listings) == 1  # the first write; the next two stay within the count
    store.write(receipt(run_id="run-3"))  # the fourth goes past max_count
    assert len(listings) == 2
    assert len(original()) == 3


def test_receipts_another_process_wrote_are_pruned_at_the_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours = ReceiptStore(tmp_path, max_count=2)
    ours.write(receipt(run_id="ours-0"))
    for index in range(3):  # the CLI, say, writes into the same directory meanwhile
        _age(ReceiptStore(tmp_path, max_count=10).write(receipt(run_id=f"cli-{index}")), 60)
    clock = time.monotonic() + receipts.PRUNE_INTERVAL_SECONDS + 1
    monkeypatch.setattr(receipts.time, "monotonic", lambda: clock)
    ours.write(receipt(run_id="ours-1"))
    assert [entry.run_id for entry in ours.list()][:1] == ["ours-1"]
    assert len(ours.list()) == 2


def test_max_count_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="max_count"):
        ReceiptStore(tmp_path, max_count=0)


def test_write_puts_the_markdown_next_to_the_json(tmp_path: Path) -> None:
    store = ReceiptStore(tmp_path)
    built = receipt()
    store.write(built).unlink()
    path = store.markdown_path(built.run_id)
    assert path == tmp_path / "receipts" / "run-1.md"
    assert path.read_text() == render_receipt(built)
    assert store.list() == []  # Markdown alone is not a receipt


def test_receipt_rejects_an_unknown_schema() -> None:
    data = json.loads(receipt().to_json())
    data["schemaVersion"] = 2
    with pytest.raises(ValueError, match="schemaVersion"):
        Receipt.model_validate(data)


def test_state_diffs_only_for_listed_edits() -> None:
    state = run_state()
    state.diffs["edit-unrelated"] = "--- a/x\n+++ b/x\n"
    built = build_receipt(
        run_result(),
        secrets=[],
        provider="ollama",
        model="m",
        base_url="http://h",
        started_at=STARTED,
        ended_at=STARTED,
        state=state,
    )
    assert [edit.edit_id for edit in built.edits] == ["edit-1"]
