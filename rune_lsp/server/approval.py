"""Asking the user to run a command (docs/interface.md#review-modes): `window/showMessageRequest`
with Run and Deny, which waits for the answer until the request's timeout; no answer, an editor
that cannot ask, or any other answer is a denial, and the command does not run."""

from __future__ import annotations

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from rune_lsp.loop.state import Approve, Decision, PreparedCommand, Reject
from rune_lsp.server.app import RuneServer


async def ask_to_run(
    server: RuneServer, change: PreparedCommand, wait: float, *, asking: str = "rune wants to run"
) -> Decision:
    """`asking`: who asks and why (the model's `run_command`, or a check rune offers)."""
    run, deny = types.MessageActionItem(title="Run"), types.MessageActionItem(title="Deny")
    request = types.ShowMessageRequestParams(
        type=types.MessageType.Warning,
        message=f"{asking}: {change.command}\n(in {change.cwd})",
        actions=[run, deny],
    )
    try:
        answer = await server.ask(types.WINDOW_SHOW_MESSAGE_REQUEST, request, wait=wait)
    except TimeoutError:
        return Reject(reason=f"no answer within {wait:g} s; not run")
    except JsonRpcException as exc:
        return Reject(reason=f"the editor did not ask the user ({exc}); not run")
    if answer is None or answer.title != run.title:
        return Reject(reason="the user denied running this command")
    return Approve()


__all__ = ["ask_to_run"]
