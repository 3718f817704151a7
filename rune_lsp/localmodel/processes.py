"""The processes and ports of model servers: whether a process still runs, which processes
serve a model on a port, and ending them.

`localServerPath` may name a wrapper script that execs or spawns llama-server, and a server
may have been started by another rune-lsp (not our child, so no exit status). The pid rune
started is then the script's, or the server's under another command line, and it alone says
little. So a server is found by what it serves: on Linux, the processes listening on its port
(`/proc/net/tcp`, matched to a socket in `/proc/<pid>/fd`) whose command line holds the
arguments rune started it with (`llama_server.ServerSpec.command`: its model, port, context),
so another server of the same model is never taken for it; and the process group rune
started the launcher in (its own session), which holds what a script spawned.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

HOST = "127.0.0.1"
#: How long a server gets to exit after SIGTERM before SIGKILL (llama-server frees its model).
STOP_WAIT = 10.0
_POLL = 0.05
_PROC = Path("/proc")
_LISTEN = "0A"  # TCP_LISTEN in /proc/net/tcp's `st` column

#: Servers this process started: their exit status is only known (and reaped) through these.
CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


def has_proc() -> bool:
    """Linux's /proc: command lines, sockets and start times of other processes."""
    return (_PROC / "self" / "stat").is_file()


def alive(pid: int) -> bool:
    """Whether `pid` runs: a zombie (dead, not yet reaped by a parent that is not us) does not."""
    child = CHILDREN.get(pid)
    if child is not None:
        return child.poll() is None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _stat(pid)[:1] != ["Z"]


def exit_status(pid: int) -> str:
    child = CHILDREN.get(pid)
    if child is not None and child.poll() is not None:
        code = child.returncode
        return f"killed by signal {-code}" if code < 0 else f"exit status {code}"
    return "not running" if not alive(pid) else "running"


def start_time(pid: int) -> str:
    """When `pid` started, in clock ticks since boot ("" without /proc): a pid reused by a new
    process has another, so a lease of a dead rune-lsp is not kept by a stranger's pid."""
    fields = _stat(pid)
    return fields[19] if len(fields) > 19 else ""


def _stat(pid: int) -> list[str]:
    """`/proc/<pid>/stat` from field 3 (state) on; the name before it may hold spaces."""
    try:
        text = (_PROC / str(pid) / "stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return text.rpartition(")")[2].split()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def port_free(port: int) -> bool:
    """Whether a server could listen on `port`. SO_REUSEADDR as llama-server (and the fake)
    bind: the connections of a server that just died (TIME_WAIT) do not hold its port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError:
            return False
    return True


# --- which processes serve a model ------------------------------------------------------------


def command_line(pid: int) -> list[str] | None:
    try:
        raw = (_PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return None
    return raw.decode(errors="replace").split("\0")


def runs(pid: int, args: Sequence[str]) -> bool:
    """Whether `pid`'s command line holds `args` in a row: the arguments rune started the
    server with, which a wrapper passes on (`"$@"`) to the llama-server it runs."""
    line = command_line(pid)
    if not line or not args:
        return False
    width = len(args)
    return any(line[i : i + width] == list(args) for i in range(len(line) - width + 1))


def listeners(port: int) -> set[int]:
    """The processes (of this user: others' are not readable) listening on TCP `port`."""
    inodes: set[str] = set()
    for table in ("tcp", "tcp6"):
        try:
            rows = (_PROC / "net" / table).read_text(encoding="utf-8").splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 9 and fields[3] == _LISTEN and fields[1].endswith(f":{port:04X}"):
                inodes.add(f"socket:[{fields[9]}]")
    return {pid for pid in _pids() if inodes and _holds(pid, inodes)} if inodes else set()


def _pids() -> Iterable[int]:
    try:
        return [int(entry.name) for entry in _PROC.iterdir() if entry.name.isdigit()]
    except OSError:
        return []


def _holds(pid: int, sockets: set[str]) -> bool:
    try:
        descriptors = list((_PROC / str(pid) / "fd").iterdir())
    except OSError:  # another user's process, or gone
        return False
    for descriptor in descriptors:
        with contextlib.suppress(OSError):
            if os.readlink(descriptor) in sockets:
                return True
    return False


def serving(launcher: int, args: Sequence[str], port: int) -> set[int]:
    """The processes that are this server: the launcher rune started (while it is ours) and,
    on Linux, whatever listens on `port` running `args` (which name the model and the port)."""
    found = {pid for pid in listeners(port) if runs(pid, args)}
    if alive(launcher) and (launcher in CHILDREN or runs(launcher, args)):
        found.add(launcher)
    return found


# --- ending them ------------------------------------------------------------------------------


def end(pids: set[int], group: int | None) -> set[int]:
    """SIGTERM `pids` (and the process group `group`), SIGKILL what is left after STOP_WAIT;
    returns the pids still running then (not ours to signal, or stuck in the kernel)."""
    _signal(pids, group, signal.SIGTERM)
    left = _wait_gone(pids, STOP_WAIT)
    if left:
        _signal(left, group, signal.SIGKILL)
        left = _wait_gone(left, 2.0)
    for pid in pids - left:
        CHILDREN.pop(pid, None)
    return left


def own_group(launcher: int) -> int | None:
    """The process group of a launcher known to be ours when it leads one (rune starts it in
    its own session), so what a wrapper script spawned is signalled with it."""
    try:
        return launcher if os.getpgid(launcher) == launcher else None
    except OSError:
        return None


def _signal(pids: set[int], group: int | None, number: signal.Signals) -> None:
    if group is not None:
        with contextlib.suppress(OSError):
            os.killpg(group, number)
    for pid in pids:
        with contextlib.suppress(OSError):  # gone already, or not ours to signal
            os.kill(pid, number)


def _wait_gone(pids: set[int], seconds: float) -> set[int]:
    for _ in range(int(seconds / _POLL)):
        left = {pid for pid in pids if alive(pid)}
        if not left:
            return left
        time.sleep(_POLL)
    return {pid for pid in pids if alive(pid)}
