"""Initialization, settings, document changes, progress cancels and shutdown.

`initialize` only keeps the client's options: they are validated (pydantic) in `initialized`,
after the answer, so a bad value is still shown before any run can start.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from rune_lsp.server.app import RuneServer

if TYPE_CHECKING:
    from rune_lsp.server.runs import RunManager
    from rune_lsp.server.services import Services


#: How long the settings pull waits for the client: never for ever (the start's offer of
#: interrupted runs comes after it).
CONFIGURATION_WAIT_SECONDS = 10.0


def register(server: RuneServer, services: Services) -> None:
    # Keeps the settings pull alive until it is done (the loop holds tasks only weakly).
    pulling: set[asyncio.Task[None]] = set()

    @server.feature(types.INITIALIZE)
    def on_initialize(ls: RuneServer, params: types.InitializeParams) -> None:
        ls.initialization_options = params.initialization_options

    @server.feature(types.INITIALIZED)
    def on_initialized(ls: RuneServer, params: types.InitializedParams) -> None:
        # Synchronous up to here on purpose: the settings are in place before pygls reads
        # the next message, whatever the client sends right after `initialized`.
        apply_settings(ls, None)
        task = asyncio.ensure_future(_after_initialized(ls, services))
        pulling.add(task)
        task.add_done_callback(pulling.discard)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_configuration(ls: RuneServer, params: types.DidChangeConfigurationParams) -> None:
        pushed = params.settings if params.settings not in (None, {}) else None
        if pushed is not None:
            apply_settings(ls, pushed)
        else:
            await pull_settings(ls)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def on_change(ls: RuneServer, params: types.DidChangeTextDocumentParams) -> None:
        services.documents.mark_changed(params.text_document.uri)
        _follow(services, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def on_open(ls: RuneServer, params: types.DidOpenTextDocumentParams) -> None:
        services.documents.mark_changed(params.text_document.uri)
        _follow(services, params.text_document.uri)

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def on_progress_cancel(ls: RuneServer, params: types.WorkDoneProgressCancelParams) -> None:
        if (runs := services.built_runs) is not None:
            runs.cancel_token(params.token)

    @server.feature(types.SHUTDOWN)
    async def on_shutdown(ls: RuneServer, params: None) -> None:
        if (runs := services.built_runs) is not None:
            await runs.shutdown()

    def on_request_cancelled(request_id: Any) -> None:
        if (runs := services.built_runs) is not None:
            runs.cancel_request(request_id)

    server.on_request_cancelled = on_request_cancelled


def _follow(services: Services, uri: str) -> None:
    """Pending reviews on the document follow the change (no desk yet: no review open)."""
    desk = services.built_desk
    if desk is not None and desk.open:
        desk.follow(uri)


async def _after_initialized(ls: RuneServer, services: Services) -> None:
    await pull_settings(ls)
    announce_interrupted(ls, services.runs)


async def pull_settings(ls: RuneServer) -> None:
    """`workspace/configuration` for section `rune`, when the client offers it."""
    from rune_lsp.server import config

    workspace = ls.client_capabilities.workspace
    if not (workspace and workspace.configuration):
        return
    try:
        answer = await ls.ask(
            types.WORKSPACE_CONFIGURATION,
            types.ConfigurationParams(items=[types.ConfigurationItem(section=config.SECTION)]),
            wait=CONFIGURATION_WAIT_SECONDS,
        )
    except Exception as exc:  # a client that fails here still gets the initial settings
        why = str(exc) or f"no answer within {CONFIGURATION_WAIT_SECONDS:g} s"
        ls.log(f"workspace/configuration failed: {why}", types.MessageType.Warning)
        return
    apply_settings(ls, answer[0] if answer else None)


def apply_settings(ls: RuneServer, configuration: object) -> None:
    from rune_lsp.server import config  # pydantic: not before the `initialize` answer

    settings, problems = config.resolve(ls.initialization_options, configuration)
    ls.settings = settings
    # The same bad value comes back with every re-read (initialized, then the pull): say it once.
    for problem in config.new_problems(ls.settings_problems, problems):
        ls.window_show_message(config.problem_message(problem))
        ls.log(str(problem), types.MessageType.Warning)
    ls.settings_problems = tuple(problems)
    ls.log(config.describe(settings), types.MessageType.Log)


def announce_interrupted(ls: RuneServer, runs: RunManager) -> None:
    interrupted = runs.interrupted()
    if not interrupted:
        return
    names = ", ".join(f"{r.run_id} ({r.document_path or r.document_uri})" for r in interrupted)
    ls.tell(
        f"rune: {len(interrupted)} interrupted run(s) wait for review: {names}. "
        "Continue one with the command rune.resume.",
        types.MessageType.Info,
    )
