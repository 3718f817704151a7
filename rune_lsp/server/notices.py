"""Telling the user in the editor why the rules refused a path, not only the model.

The model reads every refusal in its tool result. The user sees the first one of each run as a
`window/showMessage` (later ones would only repeat it) and every one in the log, so a run that
keeps being refused in single-file mode or near a secret explains itself in the editor.
"""

from __future__ import annotations

from lsprotocol import types

from rune_lsp.loop.events import RunEvent, ToolResulted
from rune_lsp.loop.messages import describe_call
from rune_lsp.loop.statuses import told_to_user
from rune_lsp.server.app import RuneServer
from rune_lsp.text_clip import clip

#: Characters of a refusal shown in one message; the log and the model get all of it.
MAX_SHOWN = 600


class RefusalNotice:
    """A run event sink (one per run): a call the rules refused is told to the user.

    Which results those are is `statuses.told_to_user`'s.
    """

    def __init__(self, server: RuneServer) -> None:
        self._server = server
        self._shown = False

    def __call__(self, event: RunEvent) -> None:
        if not isinstance(event, ToolResulted):
            return
        outcome = event.outcome
        if not told_to_user(outcome.call_status):
            return
        self.tell(f"rune refused {describe_call(event.call)}: {outcome.content}")

    def tell(self, message: str) -> None:
        self._server.log(message, types.MessageType.Warning)
        if not self._shown:
            self._shown = True
            self._server.tell(clip(message, MAX_SHOWN), types.MessageType.Warning)
