from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest
from pydantic import ValidationError
from store_samples import pending_run

from rune_lsp.loop.state import Approve, PreparedEdit
from rune_lsp.store.pending import PendingRun, PendingStore
from rune_lsp.store.runids import InvalidRunIdError


def test_round_trip_keeps_everything_needed_to_resume(tmp_path: Path) -> None:
    store = PendingStore(tmp_path)
    record = pending_run()
    record.state.turn.decide("edit-2", Approve())
    path = store.save(record)

    assert path == tmp_path / "pending" / "run-1.json"
    loaded = store.load("run-1")
    assert loaded is not None
    assert loaded.state == record.state
    assert isinstance(loaded.state.turn.pending[0], PreparedEdit)
    assert loaded.state.turn.decisions == {"edit-2": Approve()}
    assert (loaded.provider, loaded.model, loaded.base_url) == (
        "ollama",
        "qwen3:14b",
        "http://127.0.0.1:11434",
    )
    assert (loaded.document_uri, loaded.document_path) == (
        "file:///ws/src/app.py",
        "/ws/src/app.py",
    )
    assert (loaded.session_id, loaded.task) == ("session-a", "Fix add()")
    assert loaded.created_at == record.created_at
    assert loaded.updated_at >= record.updated_at


def test_no_api_key_field() -> None:
    assert not any("key" in name for name in PendingRun.model_fields)


def test_save_again_replaces_and_stamps(tmp_path: Path) -> None:
    store = PendingStore(tmp_path)
    record = pending_run()
    store.save(record)
    first = store.load("run-1")
    record.state.iterations_used = 5
    time.sleep(0.001)
    store.save(record)
    second = store.load("run-1")
    assert first is not None and second is not None
    assert second.state.iterations_used == 5
    assert second.updated_at > first.updated_at
    assert second.created_at == first.created_at
    assert [p.name for p in store.directory.iterdir()] == ["run-1.json"]


def test_list_interrupted_excludes_the_current_session(tmp_path: Path) -> None:
    store = PendingStore(tmp_path)
    store.save(pending_run("run-old", session_id="dead-session"))
    time.sleep(0.001)
    store.save(pending_run("run-mine", session_id="live-session"))
    time.sleep(0.001)
    store.save(pending_run("run-other", session_id="dead-session"))
    listed = store.list_interrupted(current_session="live-session")
    assert [record.run_id for record in listed] == ["run-other", "run-old"]
    assert {record.run_id for record in store.list_interrupted()} == {
        "run-old",
        "run-mine",
        "run-other",
    }


def test_corrupt_files_are_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = PendingStore(tmp_path)
    store.save(pending_run("run-good"))
    (store.directory / "run-torn.json").write_text('{"run_id": "run-torn", "state": {')
    (store.directory / "run-wrong.json").write_text(pending_run("run-else").model_dump_json())
    (store.directory / "not a run id.json").write_text("{}")
    (store.directory / ".run-good.json.abc.tmp").write_text("{")
    with caplog.at_level(logging.WARNING):
        listed = store.list_interrupted()
    assert [record.run_id for record in listed] == ["run-good"]
    assert "corrupt" in caplog.text and "run-torn.json" in caplog.text
    assert "holds run 'run-else'" in caplog.text
    assert "unexpected file" in caplog.text
    assert store.load("run-torn") is None


def test_state_of_another_run_is_refused() -> None:
    record = pending_run("run-1")
    with pytest.raises(ValidationError, match="state belongs to run"):
        PendingRun.model_validate({**record.model_dump(), "run_id": "run-2"})


def test_discard(tmp_path: Path) -> None:
    store = PendingStore(tmp_path)
    store.save(pending_run())
    assert store.discard("run-1") is True
    assert store.load("run-1") is None
    assert store.discard("run-1") is False
    assert store.list_interrupted() == []


def test_missing_directory_lists_nothing(tmp_path: Path) -> None:
    store = PendingStore(tmp_path / "never-created")
    assert store.list_interrupted() == []
    assert store.load("run-1") is None


@pytest.mark.parametrize("run_id", ["../../etc/passwd", "", "a\\b", "run 1"])
def test_unsafe_run_ids_are_refused(tmp_path: Path, run_id: str) -> None:
    store = PendingStore(tmp_path)
    with pytest.raises(InvalidRunIdError):
        store.load(run_id)
    with pytest.raises(InvalidRunIdError):
        store.discard(run_id)


def test_stale_temps_are_cleaned_on_save(tmp_path: Path) -> None:
    store = PendingStore(tmp_path)
    store.directory.mkdir(parents=True)
    leftover = store.directory / ".run-1.json.dead.tmp"
    leftover.write_text("{")
    an_hour_ago = time.time() - 3600
    os.utime(leftover, (an_hour_ago, an_hour_ago))
    store.save(pending_run())
    assert not leftover.exists()
