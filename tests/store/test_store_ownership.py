from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from store_samples import pending_run

from rune_lsp.store.ownership import (
    SESSIONS,
    Claim,
    RunOwnedElsewhereError,
    RunRegistry,
    SessionLock,
    new_session_id,
    owner_alive,
)
from rune_lsp.store.pending import PendingStore

DOC = "file:///ws/app.py"


def test_claim_makes_a_run_current() -> None:
    registry = RunRegistry()
    generation = registry.claim(DOC, "run-1")
    assert registry.is_current(DOC, "run-1", generation)
    assert registry.current(DOC) == Claim("run-1", generation)
    assert registry.current("file:///ws/other.py") is None


def test_a_newer_run_supersedes_and_the_stale_result_is_not_current() -> None:
    registry = RunRegistry()
    old = registry.claim(DOC, "run-1")
    new = registry.claim(DOC, "run-2")
    assert new > old
    assert not registry.is_current(DOC, "run-1", old)
    assert registry.is_current(DOC, "run-2", new)
    # The superseded run ends late: its release must not drop the newer claim.
    assert registry.release(DOC, "run-1", old) is False
    assert registry.current(DOC) == Claim("run-2", new)
    assert registry.release(DOC, "run-2", new) is True
    assert registry.current(DOC) is None


def test_resuming_the_same_run_makes_the_earlier_task_stale() -> None:
    registry = RunRegistry()
    first = registry.claim(DOC, "run-1")
    resumed = registry.claim(DOC, "run-1")  # e.g. rune.resume while the old task still runs
    assert not registry.is_current(DOC, "run-1", first)
    assert registry.is_current(DOC, "run-1", resumed)
    assert registry.release(DOC, "run-1", first) is False
    assert registry.is_current(DOC, "run-1", resumed)


def test_documents_are_independent() -> None:
    registry = RunRegistry()
    a = registry.claim("doc-a", "run-a")
    b = registry.claim("doc-b", "run-b")
    assert a != b
    assert registry.is_current("doc-a", "run-a", a) and registry.is_current("doc-b", "run-b", b)
    assert not registry.is_current("doc-b", "run-a", a)


def test_a_run_resumed_on_another_document_leaves_the_first() -> None:
    registry = RunRegistry()
    here = registry.claim("doc-a", "run-1")
    there = registry.claim("doc-b", "run-1")
    assert not registry.is_current("doc-a", "run-1", here)
    assert registry.current("doc-a") is None
    assert registry.is_current("doc-b", "run-1", there)


def test_session_ids_are_unique() -> None:
    assert len({new_session_id() for _ in range(100)}) == 100


# --- between processes: the session lock --------------------------------------------------


def _hold_in_child(root: Path, session_id: str) -> subprocess.Popen[bytes]:
    """Another server process holding `session_id` under `root`, until it is killed."""
    code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from rune_lsp.store.ownership import SessionLock\n"
        f"SessionLock({session_id!r}).hold(Path({str(root)!r}))\n"
        "print('held', flush=True)\n"
        "time.sleep(60)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    assert child.stdout is not None and child.stdout.readline() == b"held\n"
    return child


def test_a_session_is_alive_while_its_process_holds_it(tmp_path: Path) -> None:
    child = _hold_in_child(tmp_path, "other-window")
    try:
        assert owner_alive(tmp_path, "other-window")
    finally:
        child.kill()  # kill -9: nothing runs on the way out, the system drops the lock
        child.wait()
    assert not owner_alive(tmp_path, "other-window")
    assert not (tmp_path / SESSIONS / "other-window.lock").exists()  # the record goes with it


def test_a_reused_pid_does_not_keep_a_dead_session_alive(tmp_path: Path) -> None:
    # The file names a live process (this one), but nobody holds its lock: dead.
    (tmp_path / SESSIONS).mkdir()
    (tmp_path / SESSIONS / "crashed.lock").write_text(f"{os.getpid()}\n")
    assert not owner_alive(tmp_path, "crashed")


def test_hold_and_release_in_this_process(tmp_path: Path) -> None:
    mine = SessionLock(new_session_id())
    mine.hold(tmp_path)
    mine.hold(tmp_path)  # once per state dir
    assert owner_alive(tmp_path, mine.session_id)
    assert not owner_alive(tmp_path, "never-was")
    assert not owner_alive(tmp_path, "../escape")
    mine.release()
    assert not owner_alive(tmp_path, mine.session_id)


def test_only_a_dead_owners_run_is_interrupted_and_claimed(tmp_path: Path) -> None:
    store = PendingStore(tmp_path)
    store.save(pending_run("run-live", session_id="other-window"))
    store.save(pending_run("run-dead", session_id="crashed-window"))
    child = _hold_in_child(tmp_path, "other-window")
    try:
        listed = store.list_interrupted(current_session="me")
        assert [record.run_id for record in listed] == ["run-dead"]
        with pytest.raises(RunOwnedElsewhereError, match="run run-live is live in another"):
            store.claim("run-live", "me")
        claimed = store.claim("run-dead", "me")
    finally:
        child.kill()
        child.wait()
    assert claimed.session_id == "me"
    stored = store.load("run-dead")
    assert stored is not None and stored.session_id == "me"  # taken over before it goes on
    assert [r.run_id for r in store.list_interrupted(current_session="me")] == ["run-live"]
    with pytest.raises(KeyError):
        store.claim("no-such-run", "me")
