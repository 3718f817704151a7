"""Which models call tools only through the text protocol, kept across runs.

A model that answered a fix in prose although native tools were offered, and then called a tool
once the run moved to the text protocol, starts its later runs with the text protocol:
`root/protocols.json`, one small typed file. The `nativeTools` setting still forces either
protocol; deleting the file forgets every choice.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rune_lsp.store.atomic import atomic_write_text, read_json_model

log = logging.getLogger(__name__)

FILE_NAME = "protocols.json"
#: Models remembered at most; the oldest choice goes first. Keeps the file a few KB.
MAX_MODELS = 200


class ProtocolChoices(BaseModel):
    """The stored file. Keys are `provider:model`, e.g. `openai:qwen2.5-coder-1.5b`."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    version: Literal[1] = 1
    text_protocol: tuple[str, ...] = Field(default=(), max_length=MAX_MODELS)


class ProtocolMemory:
    """Read at every run start (the file is tiny), written when a choice is learned."""

    def __init__(self, root: Path) -> None:
        self.path = root / FILE_NAME

    def load(self) -> ProtocolChoices:
        return read_json_model(self.path, ProtocolChoices) or ProtocolChoices()

    def prefers_text(self, key: str) -> bool:
        return key in self.load().text_protocol

    def remember_text(self, key: str) -> None:
        known = self.load().text_protocol
        if key in known:
            return
        choices = ProtocolChoices(text_protocol=(*known, key)[-MAX_MODELS:])
        try:
            atomic_write_text(self.path, choices.model_dump_json(indent=2) + "\n")
        except OSError as exc:  # only later runs lose; this one already switched
            log.warning("rune: cannot remember the protocol for %s in %s: %s", key, self.path, exc)
