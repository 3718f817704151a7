from __future__ import annotations

from rune_lsp.store.ownership import Claim, RunRegistry, new_session_id

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
