"""Transcripts kept for a follow-up turn: scrubbed, bounded in count, served after a restart."""

from __future__ import annotations

from pathlib import Path

from rune_lsp.loop.messages import Message
from rune_lsp.store.transcripts import TranscriptStore

SECRET = "sk-live-0123456789abcdef"
MESSAGES = (
    Message(role="system", content="You are a coding agent."),
    Message(role="user", content="Task: fix add"),
    Message(role="assistant", content=f"Done; the key is {SECRET}."),
)


def test_a_transcript_is_kept_without_its_system_message_and_scrubbed(tmp_path: Path) -> None:
    store = TranscriptStore(tmp_path)

    assert store.save("r1", MESSAGES, secrets=[SECRET])

    kept = store.load("r1")
    assert kept is not None
    assert [m.role for m in kept] == ["user", "assistant"]
    assert SECRET not in kept[1].content
    assert SECRET not in store.path("r1").read_text()


def test_a_new_server_reads_it_from_disk(tmp_path: Path) -> None:
    TranscriptStore(tmp_path).save("r1", MESSAGES, secrets=[])

    kept = TranscriptStore(tmp_path).load("r1")

    assert kept is not None and kept[0].content == "Task: fix add"


def test_only_the_last_runs_are_kept(tmp_path: Path) -> None:
    store = TranscriptStore(tmp_path, max_count=2)
    for run_id in ("r1", "r2", "r3"):
        store.save(run_id, MESSAGES, secrets=[])

    assert store.load("r1") is None
    assert TranscriptStore(tmp_path, max_count=2).load("r1") is None
    assert store.load("r2") is not None and store.load("r3") is not None


def test_an_unknown_run_has_none(tmp_path: Path) -> None:
    assert TranscriptStore(tmp_path).load("nope") is None
