"""`run_command`: proposed for approval, then run in the workspace root with a time limit.

Output is read as it comes and only the last bytes of each stream are kept, so a chatty command
cannot fill memory. Terminal control sequences are removed from what is kept: the model, the
receipt and the editor show text, not a terminal. The command runs in its own process group:
on timeout or cancellation the whole group is killed, children included.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rune_lsp.loop.state import PreparedCommand, ToolOutcome
from rune_lsp.tools.context import ToolContext
from rune_lsp.tools.errors import ToolError
from rune_lsp.tools.schemas import RunCommandArgs

DEFAULT_TAIL_BYTES = 8 * 1024
#: After the shell exits, children that still hold its output pipes get this long to finish.
_PIPE_GRACE = 1.0
_POLL = 0.02
_CHUNK = 64 * 1024
#: Colours and cursor moves (ECMA-48 CSI, and OSC up to its terminator), as a check run with
#: `--color=yes`, PY_COLORS=1 or FORCE_COLOR=1 writes them: pytest's coloured summary line
#: counted no failing tests, and every code costs the model tokens.
_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erases
    r"|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"  # OSC (a title), never past its line
    r"|\x1b[()][0-9A-Za-z]|\x1b[78=>]"  # charset (`tput sgr0`'s ESC ( B), save/restore cursor
)


@dataclass(frozen=True)
class ShellResult:
    exit_code: int  # negative: killed by that signal
    timed_out: bool
    stdout_tail: str
    stderr_tail: str
    duration_ms: float
    stdout_dropped: int = 0  # bytes cut from the start of the output
    stderr_dropped: int = 0


def prepare_command(
    ctx: ToolContext, args: RunCommandArgs, *, call_id: str, edit_id: str, reason: str
) -> PreparedCommand:
    if not args.command.strip():
        raise ToolError("command is empty.")
    if "\0" in args.command:
        raise ToolError("command contains a NUL byte.")
    # The same check `recheck` makes, before the user is asked: in single-file mode (or with
    # `allowedWriteDirs` narrower than the root) there is no folder a command may run in.
    cwd = ctx.write_path(str(ctx.root))
    return PreparedCommand(
        edit_id=edit_id, call_id=call_id, command=args.command, cwd=str(cwd), reason=reason
    )


class _Tail:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.dropped = 0

    def feed(self, chunk: bytes) -> None:
        self.data += chunk
        excess = len(self.data) - self.limit
        if excess > 0:
            del self.data[:excess]
            self.dropped += excess

    def text(self) -> str:
        return _CONTROL.sub("", self.data.decode("utf-8", errors="replace"))


async def _drain(stream: asyncio.StreamReader | None, tail: _Tail) -> None:
    if stream is None:
        return
    while chunk := await stream.read(_CHUNK):
        tail.feed(chunk)


def _retrieve_exception(future: asyncio.Future[tuple[None, None]]) -> None:
    if not future.cancelled():
        future.exception()


def _kill_group(process: asyncio.subprocess.Process) -> None:
    # ProcessLookupError: the group is already gone.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


async def run_shell(
    command: str,
    *,
    cwd: Path,
    timeout: float,  # noqa: ASYNC109 - a deadline for the child process, not for this call
    tail_bytes: int = DEFAULT_TAIL_BYTES,
    env: Mapping[str, str] | None = None,
) -> ShellResult:
    """Run `command` through the shell in `cwd`, stdin closed; keep the last output bytes.
    `env`: variables set for it over this process's environment."""
    started = time.monotonic()
    process = await asyncio.create_subprocess_shell(
        command,
        cwd=cwd,
        env={**os.environ, **env} if env else None,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    out, err = _Tail(tail_bytes), _Tail(tail_bytes)
    readers = asyncio.gather(_drain(process.stdout, out), _drain(process.stderr, err))
    timed_out = False
    try:
        if not await _exited(process, timeout):
            timed_out = True
            _kill_group(process)
            await _exited(process, _PIPE_GRACE)
        await _finish_reading(process, readers)
    except BaseException:
        # Cancelled (or failed) mid-run: nothing may outlive the run.
        _kill_group(process)
        readers.cancel()
        # gather() stores the cancel as its exception; unread, asyncio logs it with a traceback.
        readers.add_done_callback(_retrieve_exception)
        raise
    return ShellResult(
        exit_code=process.returncode if process.returncode is not None else -signal.SIGKILL,
        timed_out=timed_out,
        stdout_tail=out.text(),
        stderr_tail=err.text(),
        duration_ms=(time.monotonic() - started) * 1000,
        stdout_dropped=out.dropped,
        stderr_dropped=err.dropped,
    )


async def _exited(process: asyncio.subprocess.Process, within: float) -> bool:
    """Wait for the shell itself to exit.

    Polled, because `Process.wait()` (Python 3.11) also waits for the output pipes to close,
    which a background child can hold open long after the shell is gone.
    """
    deadline = time.monotonic() + within
    while process.returncode is None:
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(_POLL)
    return True


async def _finish_reading(
    process: asyncio.subprocess.Process, readers: asyncio.Future[tuple[None, None]]
) -> None:
    """Collect the rest of the output; children left holding the pipes are killed."""
    try:
        await asyncio.wait_for(asyncio.shield(readers), _PIPE_GRACE)
    except TimeoutError:
        _kill_group(process)
        # On timeout wait_for cancels the readers; what they read so far is kept.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(readers, _PIPE_GRACE)
    # Lets asyncio close the transport; bounded in case a child escaped the group.
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), _PIPE_GRACE)


def describe_result(command: str, result: ShellResult, *, timeout: float) -> ToolOutcome:
    """The outcome the model reads: exit status first, then the tails of both streams."""
    seconds = result.duration_ms / 1000
    if result.timed_out:
        status_line = f"timed out after {timeout:g} s; the command and its children were killed"
    elif result.exit_code < 0:
        status_line = f"killed by signal {-result.exit_code} after {seconds:.1f} s"
    else:
        status_line = f"exit status {result.exit_code} after {seconds:.1f} s"
    parts = [f"$ {command}", status_line]
    for name, tail, dropped in (
        ("stdout", result.stdout_tail, result.stdout_dropped),
        ("stderr", result.stderr_tail, result.stderr_dropped),
    ):
        if tail or dropped:
            cut = f" (last part only; {dropped} earlier bytes dropped)" if dropped else ""
            parts.append(f"--- {name}{cut} ---\n{tail.rstrip()}")
    if len(parts) == 2:
        parts.append("(no output)")
    ok = result.exit_code == 0 and not result.timed_out
    return ToolOutcome(
        status="ok" if ok else "failed", content="\n".join(parts), edit_status="applied"
    )
