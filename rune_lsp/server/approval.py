"""Asking the user to run a command (docs/interface.md#commands-the-agent-runs).

A client that advertises the experimental capability `runeCommandApproval` (rune's VS Code
extension) gets `rune/approveCommand` and shows its own prompt, which can also allow the
command always for the workspace (the client adds it to `rune.allowedCommands`). Any other
client gets `window/showMessageRequest` with Run, Allow for this run and Deny. Either request is
withdrawn (`$/cancelRequest`) when the server stops waiting; no answer, an editor that cannot
ask, or any other answer is a denial, and the command does not run.
"""

from __future__ import annotations

from typing import Literal

from lsprotocol import types
from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel
from pygls.exceptions import JsonRpcException

from rune_lsp.controls import visible
from rune_lsp.interface import APPROVE_COMMAND
from rune_lsp.loop.state import Approve, Decision, PreparedCommand, Reject
from rune_lsp.server.app import RuneServer
from rune_lsp.server.protocol import plain

#: The actions of `window/showMessageRequest`, and what each decides.
RUN, FOR_RUN, DENY = "Run", "Allow for this run", "Deny"


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)


class ApproveCommandParams(_Wire):
    """`rune/approveCommand`: the command exactly as it would run, whole."""

    run_id: str
    command: str
    cwd: str
    reason: str
    wait_seconds: float


class ApproveCommandAnswer(_Wire):
    decision: Literal["run", "allowForRun", "allowAlways", "deny"]
    reason: str | None = None


async def ask_to_run(
    server: RuneServer,
    change: PreparedCommand,
    wait: float,
    *,
    run_id: str = "",
    asking: str = "rune wants to run",
) -> Decision:
    """`asking`: who asks and why (the model's `run_command`, or a check rune offers before a
    run, which has no run id yet)."""
    try:
        if server.client_approves_commands:
            return await _ask_client(server, change, wait, run_id, asking)
        return await _ask_message(server, change, wait, asking)
    except TimeoutError:
        return Reject(reason=f"no answer within {wait:g} s; not run")
    except JsonRpcException as exc:
        return Reject(reason=f"the editor did not ask the user ({exc}); not run")


async def _ask_client(
    server: RuneServer, change: PreparedCommand, wait: float, run_id: str, asking: str
) -> Decision:
    params = ApproveCommandParams(
        run_id=run_id,
        command=change.command,
        cwd=change.cwd,
        reason=change.reason or asking,
        wait_seconds=wait,
    )
    raw = await server.ask(APPROVE_COMMAND, params.model_dump(by_alias=True), wait=wait)
    try:
        answer = ApproveCommandAnswer.model_validate(plain(raw))
    except ValidationError:
        return Reject(reason="the editor's answer was not understood; not run")
    if answer.decision == "deny":
        said = (answer.reason or "").strip()
        return Reject(reason=f"the user denied running this command{f': {said}' if said else ''}")
    return Approve(for_run=answer.decision != "run")


async def _ask_message(
    server: RuneServer, change: PreparedCommand, wait: float, asking: str
) -> Decision:
    actions = [types.MessageActionItem(title=title) for title in (RUN, FOR_RUN, DENY)]
    # Whole, with its control characters shown: what the user approves is what runs.
    request = types.ShowMessageRequestParams(
        type=types.MessageType.Warning,
        message=f"{asking}: {visible(change.command)}\n(in {visible(change.cwd)})",
        actions=actions,
    )
    answer = await server.ask(types.WINDOW_SHOW_MESSAGE_REQUEST, request, wait=wait)
    title = getattr(answer, "title", None)
    if title not in (RUN, FOR_RUN):
        return Reject(reason="the user denied running this command")
    return Approve(for_run=title == FOR_RUN)


__all__ = ["ApproveCommandAnswer", "ApproveCommandParams", "ask_to_run"]
