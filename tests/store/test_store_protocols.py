"""The per-model protocol memory: one small typed file in the state dir."""

from __future__ import annotations

import json
from pathlib import Path

from rune_lsp.store.protocols import FILE_NAME, MAX_MODELS, ProtocolMemory


def test_a_remembered_model_is_known_to_a_new_reader(tmp_path: Path) -> None:
    ProtocolMemory(tmp_path).remember_text("openai:qwen2.5-coder-1.5b")

    memory = ProtocolMemory(tmp_path)
    assert memory.prefers_text("openai:qwen2.5-coder-1.5b")
    assert not memory.prefers_text("ollama:qwen2.5-coder-1.5b")
    stored = json.loads((tmp_path / FILE_NAME).read_text())
    assert stored == {"version": 1, "text_protocol": ["openai:qwen2.5-coder-1.5b"]}


def test_remembering_twice_keeps_one_entry_and_the_file_stays_small(tmp_path: Path) -> None:
    memory = ProtocolMemory(tmp_path)
    for n in range(MAX_MODELS + 20):
        memory.remember_text(f"openai:model-{n}")
    memory.remember_text(f"openai:model-{MAX_MODELS + 19}")

    kept = memory.load().text_protocol
    assert len(kept) == MAX_MODELS and kept[-1] == f"openai:model-{MAX_MODELS + 19}"
    assert not memory.prefers_text("openai:model-0")  # the oldest choice went first


def test_a_corrupt_file_is_no_memory(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_text('{"version": 7, "text_protocol": 3}')
    memory = ProtocolMemory(tmp_path)
    assert not memory.prefers_text("openai:m")
    memory.remember_text("openai:m")  # and it is replaced by a good one
    assert memory.prefers_text("openai:m")


def test_an_unwritable_state_dir_costs_only_the_memory(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    ProtocolMemory(blocked).remember_text("openai:m")  # logged, not raised
    assert not ProtocolMemory(blocked).prefers_text("openai:m")
