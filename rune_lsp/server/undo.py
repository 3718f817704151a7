"""An accepted edit the user takes back in the editor (Ctrl+Z), found out and recorded.

Once an edit landed in an open document, the server keeps watching that document: when its
text returns to what it was right before the edit landed, the user undid it (an editor undoes
one applied edit in one step). The run's record says so: the edit keeps its status (the public
vocabulary, docs/interface.md#run-result) and its detail starts with the undo; a run still going
tells the model before its next turn; a run that already ended has its receipt amended. A redo
(the text back to the landed one) takes that back. Several edits of one file landed one on
another are undone one by one. Any other change ends the watch: from then on the text says
nothing certain about those edits. While an edit is on its way to the editor, the changes it
brings (and the user's typing during its review) are not taken for an undo.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from rune_lsp.loop.state import Landed, RunState
from rune_lsp.loop.statuses import UNDONE
from rune_lsp.server.documents import LspDocuments
from rune_lsp.store.receipts import ReceiptStore

log = logging.getLogger(__name__)

#: How long a run may still go on after an undo before its receipt is checked for it.
RUN_WAIT_SECONDS = 3600.0
_POLL_SECONDS = 0.5


@dataclass(frozen=True)
class Landing:
    """An edit that landed in an open document: the text right before it and right after."""

    run_id: str
    edit_id: str
    path: Path
    display_path: str
    before: str
    after: str
    #: The run's state while it goes on: an undo is told to the model through its notices.
    state: RunState | None = None


def landing_of(
    run_id: str,
    edit_id: str,
    path: Path | None,
    display_path: str,
    *,
    texts: Sequence[str | None],
    after: str | None,
    state: RunState | None,
) -> Landing | None:
    """The landing to watch, from the texts the document held while the edit was on its way
    (the first is the one it was sent on): the one right before the landed text. None when
    there is nothing an editor's undo takes back (no open document, no change seen)."""
    if path is None or after is None:
        return None
    at = max((i for i, text in enumerate(texts) if text == after), default=0)
    before = next((text for text in reversed(texts[:at]) if text != after), None)
    if before is None:
        return None
    return Landing(run_id, edit_id, path, display_path, before, after, state)


@dataclass
class _Chain:
    """Edits of one document, each landed on the text the one before it left."""

    landings: list[Landing]
    stop: Callable[[], None]
    undone: list[bool] = field(default_factory=list)


class Undos:
    def __init__(
        self,
        documents: LspDocuments,
        receipts: Callable[[], ReceiptStore],
        live: Callable[[str], bool],
    ) -> None:
        self.documents = documents
        self.receipts = receipts
        self.live = live
        self._chains: dict[Path, _Chain] = {}
        self._sending: dict[Path, int] = {}
        #: Per (run, edit), its latest undo state not yet checked against the receipt, and
        #: whether it came after the run ended. One entry and one waiting task per edit,
        #: however often the user flips it (issue 25, item 8: 400 flips made 400 notes).
        self._latest: dict[tuple[str, str], tuple[Landing, bool, bool]] = {}
        self._tasks: dict[tuple[str, str], asyncio.Task[None]] = {}
        #: Per (run, edit), the notice of it waiting in its run's `notices` (by identity: two
        #: edits of one file read alike).
        self._waiting: dict[tuple[str, str], str] = {}

    @contextmanager
    def sending(self, path: Path) -> Iterator[Callable[[Landing], None]]:
        """Around one applyEdit of `path`: yields what records the edit once it landed."""
        key = path.resolve()
        self._sending[key] = self._sending.get(key, 0) + 1
        try:
            yield self._landed
        finally:
            self._sending[key] -= 1
            if not self._sending[key]:
                del self._sending[key]
                # What came meanwhile and was no landing of a watched edit ends the watch.
                self._changed(key, self.documents.read_text(key))

    def _landed(self, landing: Landing) -> None:
        key = landing.path.resolve()
        chain = self._chains.get(key)
        # An undo may have come while this edit was on its way: the text it landed on says.
        if (
            chain is not None
            and self._settle(chain, landing.before)
            and not any(chain.undone)
            and chain.landings[-1].after == landing.before
        ):
            chain.landings.append(landing)
            chain.undone.append(False)
            return
        self._end(key)
        stop = self.documents.listen(key, lambda text: self._changed(key, text))
        self._chains[key] = _Chain([landing], stop, [False])

    def _changed(self, key: Path, text: str | None) -> None:
        chain = self._chains.get(key)
        if chain is None or self._sending.get(key):
            return
        if not self._settle(chain, text):
            self._end(key)

    def _settle(self, chain: _Chain, text: str | None) -> bool:
        """Which of the chain's edits `text` still holds, recorded; False when it is none of
        the texts they went through."""
        states = [chain.landings[0].before, *(landing.after for landing in chain.landings)]
        matches = [k for k, state in enumerate(states) if state == text]
        if not matches:
            return False
        applied = matches[-1]  # the edits before this point are in the text, the rest undone
        for i, landing in enumerate(chain.landings):
            undone = i >= applied
            if chain.undone[i] != undone:
                chain.undone[i] = undone
                self._record(landing, undone=undone)
        return True

    def _end(self, key: Path) -> None:
        chain = self._chains.pop(key, None)
        if chain is not None:
            chain.stop()

    # --- the record ---------------------------------------------------------------------------

    def _record(self, landing: Landing, *, undone: bool) -> None:
        what = "undid" if undone else "redid"
        log.info("the user %s edit %s of %s", what, landing.edit_id, landing.display_path)
        state = landing.state
        live = self.live(landing.run_id)
        key = (landing.run_id, landing.edit_id)
        if state is not None and live:
            _tell_run(state, landing, undone=undone)
            self._tell_model(key, state, _notice(landing, undone=undone))
        self._latest[key] = (landing, undone, not live)
        if key not in self._tasks:
            task = asyncio.ensure_future(self._amend_receipt(key))
            self._tasks[key] = task
            # Cancelled at shutdown: forget it (a finished one has removed itself already).
            task.add_done_callback(lambda done: self._forget(key, done))

    def _tell_model(self, key: tuple[str, str], state: RunState, notice: str) -> None:
        """One notice per edit waits for the model's next turn. A flip while the last one
        still waits leaves the edit as the model last heard of it: both go."""
        waiting = self._waiting.pop(key, None)
        kept = [n for n in state.notices if n is not waiting]
        if waiting is not None and len(kept) < len(state.notices):
            state.notices = kept
            return
        state.notices.append(notice)
        self._waiting[key] = notice

    def _forget(self, key: tuple[str, str], task: asyncio.Task[None] | None) -> None:
        if task is not None and self._tasks.get(key) is task:
            del self._tasks[key]
            self._waiting.pop(key, None)

    async def _amend_receipt(self, key: tuple[str, str]) -> None:
        """Once the run is over, make its receipt say what became of the edit last (the run's
        result may have been built before the undo, or the run ended long before it)."""
        run_id = key[0]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + RUN_WAIT_SECONDS
        while True:  # the run's end is no event anyone waits for: poll, it is cheap
            if not self.live(run_id) or loop.time() >= deadline:
                break
            await asyncio.sleep(_POLL_SECONDS)
        # From here on a new flip starts a task of its own: nothing below waits.
        self._forget(key, self._tasks.get(key))
        landing, undone, late = self._latest.pop(key)
        store = self.receipts()
        receipt = store.load(run_id)
        record = (
            next((e for e in receipt.result.edits if e.edit_id == landing.edit_id), None)
            if receipt is not None
            else None
        )
        if record is None:
            log.info("no receipt of run %s to record the undo in", run_id)
            return
        detail = marked(record.detail, undone=undone)
        if detail == record.detail:
            return  # the run heard of it in time
        what = "undone" if undone else "redone"
        when = "after the run ended" if late else "as the run ended, after its result was built"
        note = f"edit {landing.edit_id} was {what} by the user in the editor {when}"
        store.amend_edit(run_id, landing.edit_id, record.status, detail, note=note)


def marked(detail: str, *, undone: bool) -> str:
    """An edit's detail saying it was undone, or no longer saying so."""
    if undone:
        return detail if detail.startswith(UNDONE) else UNDONE + detail
    return detail.removeprefix(UNDONE)


def _tell_run(state: RunState, landing: Landing, *, undone: bool) -> None:
    """The live run's record of the edit (what the model hears is `Undos._tell_model`'s)."""
    state.edits = [
        e.model_copy(update={"detail": marked(e.detail, undone=undone)})
        if e.edit_id == landing.edit_id and e.status != "pending"
        else e
        for e in state.edits
    ]
    decision = state.turn.decisions.get(landing.edit_id)
    if isinstance(decision, Landed):  # not yet turned into the call's result
        state.turn.decisions[landing.edit_id] = decision.model_copy(
            update={"detail": marked(decision.detail, undone=undone)}
        )


def _notice(landing: Landing, *, undone: bool) -> str:
    """What the model hears of an undo or a redo of `landing`."""
    if undone:
        return (
            f"The user undid your edit of {landing.display_path} in the editor (Ctrl+Z): the "
            "file is back to its text before that edit. Read it again before relying on it."
        )
    return (
        f"The user redid your edit of {landing.display_path} in the editor: the change "
        "is in the file again."
    )
