"""What the features work with (documents, review desk, run manager), built on first use.

None of it is needed to answer `initialize`, and together it imports the agent loop, the
tools, the stores and pydantic: building it lazily keeps all of that off the editor's start.
"""

from __future__ import annotations

import gc
import os
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rune_lsp.server.app import RuneServer
    from rune_lsp.server.desk import ReviewDesk
    from rune_lsp.server.documents import LspDocuments
    from rune_lsp.server.runs import RunManager


class Services:
    def __init__(self, server: RuneServer) -> None:
        self._server = server

    @cached_property
    def documents(self) -> LspDocuments:
        from rune_lsp.server.documents import LspDocuments

        server = self._server
        # pygls builds the workspace at `initialize`, so documents look it up on each use.
        return LspDocuments(lambda: server.workspace)

    @cached_property
    def desk(self) -> ReviewDesk:
        from rune_lsp.server import config
        from rune_lsp.server.desk import ReviewDesk
        from rune_lsp.server.review import CHANGE_GRACE_SECONDS, REVIEW_WAIT_SECONDS

        return ReviewDesk(
            self._server,
            self.documents,
            change_grace=config.change_grace(os.environ, CHANGE_GRACE_SECONDS),
            answer_wait=config.review_wait(os.environ, REVIEW_WAIT_SECONDS),
        )

    @cached_property
    def runs(self) -> RunManager:
        import rune_lsp.providers  # noqa: F401  (httpx and the wire models, for the freeze)
        from rune_lsp.server.runs import RunManager

        # What is imported by now lives as long as the server. Out of the collector's sight,
        # a full collection walks only what runs create: 45 ms every hundred or so runs became
        # under 1 ms here, a pause the editor would otherwise feel.
        gc.freeze()
        return RunManager(self._server, self.documents, self.desk)

    @property
    def built_runs(self) -> RunManager | None:
        """The run manager if anything has needed it yet: no runs to stop otherwise."""
        runs: RunManager | None = self.__dict__.get("runs")
        return runs

    @property
    def built_desk(self) -> ReviewDesk | None:
        """The review desk if anything has needed it yet: no review actions to offer otherwise."""
        desk: ReviewDesk | None = self.__dict__.get("desk")
        return desk
