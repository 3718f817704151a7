"""Candidate fixes checked in one run's scratch copy (the `Checker` port's `check_changes`).

The copy (runner/scratch.py) is made on the first candidate check of a run, brought up to date
before each one (the workspace as it is now, the open buffers' text over it, the candidate's
files over that) and removed by `close`, which the driver calls however the run ends. One
check runs at a time; the copying happens in a worker thread, so the server stays responsive.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from rune_lsp.loop.state import CheckReport, PreparedChange, PreparedEdit
from rune_lsp.runner.scratch import ScratchCopy, ScratchError, python_path, sweep_stale
from rune_lsp.runner.spectrum import NO_SPECTRUM, Spectrum, record
from rune_lsp.runner.verify import CheckOutcome, record_of, report_of
from rune_lsp.tools.documents import DocumentSource
from rune_lsp.tools.errors import DocumentError
from rune_lsp.tools.run_command import run_shell

_T = TypeVar("_T")
_log = logging.getLogger(__name__)

#: Cores from which a candidate's check runs while the next candidate is generated: below it,
#: a local model and the check would share too few cores, and each would wait for the other.
OVERLAP_CORES = 4


def overlap_checks() -> bool:
    """Whether this machine checks one candidate while the model writes the next."""
    return (os.cpu_count() or 1) >= OVERLAP_CORES


@dataclass
class ScratchChecks:
    """The check command run on candidate changes in one run's scratch copy."""

    command: str
    root: Path
    documents: DocumentSource
    timeout: float
    parent: Path | None = None  # where copies live (tests point it at a temp dir)
    copy: ScratchCopy | None = field(init=False, default=None)
    _lock: asyncio.Lock = field(init=False, default_factory=asyncio.Lock)
    # Work in a worker thread, awaited by `close` even when the run was cancelled meanwhile.
    _busy: asyncio.Future[Any] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.root = self.root.resolve()  # open documents and prepared edits are resolved

    async def check(self, changes: Sequence[PreparedChange]) -> CheckReport:
        """The check on the workspace with `changes` applied, in the scratch copy only.
        Raises ScratchError when the copy cannot be made or a change lies outside it."""
        texts = {**self._buffers(), **self._changed_texts(changes)}
        async with self._lock:
            copy = await self._staged(texts)
            result = await run_shell(
                self.command,
                cwd=copy.path,
                timeout=self.timeout,
                env=python_path(copy.import_paths()),
            )
        record = record_of(self.command, result)
        record = record.model_copy(
            update={
                "stdout_tail": copy.translate(record.stdout_tail),
                "stderr_tail": copy.translate(record.stderr_tail),
            }
        )
        return report_of(CheckOutcome(record=record))

    async def spectrum(self) -> Spectrum:
        """What the check's tests run on the workspace as it is (the open buffers' text over
        the disk's), recorded in the scratch copy; NO_SPECTRUM when the copy cannot be made."""
        texts = self._buffers()
        async with self._lock:
            try:
                copy = await self._staged(texts)
            except (ScratchError, OSError) as exc:
                _log.info("no spectrum: %s", exc)
                return NO_SPECTRUM
            started = time.monotonic()
            spectrum = await record(
                self.command, copy.path, self.timeout, self.parent, copy.import_paths()
            )
        _log.info(
            "spectrum: %d failing and %d passing tests, %d functions ran in failing ones (%.1f s)",
            spectrum.failed,
            spectrum.passed,
            len(spectrum.suspects),
            time.monotonic() - started,
        )
        return spectrum

    async def _staged(self, texts: Mapping[str, str]) -> ScratchCopy:
        """The copy, made on first use, with `texts` (by relative path) over the workspace."""
        if self.copy is None:
            await self._in_thread(lambda: sweep_stale(self.parent))
            # Made here, not in the thread: a cancel must find it to remove it.
            self.copy = ScratchCopy(self.root, parent=self.parent)
            await self._in_thread(self.copy.populate)
        copy = self.copy
        await self._in_thread(lambda: copy.stage(texts))
        return copy

    async def close(self) -> None:
        """Remove the copy (after any copying still under way): every run ends with this."""
        if self._busy is not None:
            await asyncio.gather(self._busy, return_exceptions=True)
        if self.copy is not None:
            copy, self.copy = self.copy, None
            await asyncio.to_thread(copy.remove)

    async def _in_thread(self, work: Callable[[], _T]) -> _T:
        future: asyncio.Future[_T] = asyncio.ensure_future(asyncio.to_thread(work))
        self._busy = future
        result: _T = await asyncio.shield(future)
        return result

    def _buffers(self) -> Mapping[str, str]:
        """The open documents inside the workspace, by relative path: their text wins."""
        texts: dict[str, str] = {}
        for path in self.documents.open_paths():
            if not path.is_relative_to(self.root):
                continue
            try:
                text = self.documents.read_text(path)
            except DocumentError:
                continue
            if text is not None:
                texts[path.relative_to(self.root).as_posix()] = text
        return texts

    def _changed_texts(self, changes: Sequence[PreparedChange]) -> Mapping[str, str]:
        texts: dict[str, str] = {}
        for change in changes:
            if not isinstance(change, PreparedEdit):
                continue  # a command is never run for a candidate
            path = Path(change.path)
            if not path.is_relative_to(self.root):
                raise ScratchError(
                    f"{path} is outside {self.root}, the folder the scratch copy holds"
                )
            texts[path.relative_to(self.root).as_posix()] = change.new_text
        return texts
