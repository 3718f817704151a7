"""One llama-server per model, shared by every rune-lsp on the machine, stopped with the last.

The state directory holds, per server (`key`: the model alias and a digest of what it runs
with), a record of the running server (`<key>.json`: pid, port, binary, model, log) and one
lease file per rune-lsp using it (`<key>.users/<pid>-<id>`, holding the owner's start time).
Two editors with different settings (say another `contextLength`) get two servers rather than
one stopping the other's. Everything that reads or changes them holds `supervisor.lock`.

A lease whose owner died (its pid gone, or taken by a process that started later) is dropped,
and a server that no live lease holds is stopped: when the last lease is given back, and on
every start, since a rune-lsp killed with SIGKILL gives nothing back (its server is then
joined when the same settings ask for it, else stopped). The server runs in its own session,
so the Ctrl-C of the rune-lsp that started it does not take it from the others; it is stopped
by what it serves (`processes`), wrapper scripts included, and `StopResult` says when it could
not be.

What a server runs with, its record's fields and the health checks are in `llama_server`.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import subprocess
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from rune_lsp.localmodel import processes
from rune_lsp.localmodel.errors import PortTaken, ServerFailed
from rune_lsp.localmodel.llama_server import Record, ServerSpec, serves, wait_healthy
from rune_lsp.localmodel.lock import exclusive
from rune_lsp.localmodel.proc import tail
from rune_lsp.localmodel.processes import HOST, alive, exit_status, free_port, port_free
from rune_lsp.localmodel.progress import Cancel, Progress, Step

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StopResult:
    """What giving a lease back (or stopping a server) did. `in use`: another rune-lsp holds
    it; `stopped`; `not running` (it had died); `left running`: it still answers and could not
    be stopped, and `message` tells the user which process to end."""

    outcome: Literal["in use", "stopped", "not running", "left running"]
    message: str = ""


class Supervisor:
    def __init__(self, state_dir: Path) -> None:
        self.root = state_dir / "local-model"

    def acquire(self, spec: ServerSpec, *, progress: Progress, cancel: Cancel) -> Lease:
        """A lease on a healthy server for `spec`: the running one, else a new one."""
        with exclusive(self.root / "supervisor.lock", cancel=cancel):
            self._reap(keep=spec.key)
            record = self._healthy_record(spec)
            if record is None:
                record = self._start(spec, progress, cancel)
            lease_file = self._users(spec.key) / f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
            lease_file.parent.mkdir(parents=True, exist_ok=True)
            lease_file.write_text(processes.start_time(os.getpid()), encoding="utf-8")
        lease = Lease(self, spec, record, lease_file)
        # A rune-lsp that exits without closing its provider (the editor went away) still
        # gives its lease back; only a hard kill leaves one, dropped by the next start.
        atexit.register(lease.release)
        return lease

    # --- records and leases -----------------------------------------------------------------

    def _record_path(self, key: str) -> Path:
        return self.root / f"{key}.json"

    def _users(self, key: str) -> Path:
        return self.root / f"{key}.users"

    def read_record(self, key: str) -> Record | None:
        try:
            fields = json.loads(self._record_path(key).read_text(encoding="utf-8"))
            fields["args"] = tuple(fields.get("args", ()))
            return Record(**fields)
        except (OSError, ValueError, TypeError, AttributeError):
            return None

    def _write_record(self, record: Record) -> None:
        path = self._record_path(record.key)
        partial = path.with_suffix(".json.partial")
        partial.write_text(json.dumps(asdict(record)), encoding="utf-8")
        partial.replace(path)

    def _forget(self, record: Record) -> None:
        current = self.read_record(record.key)
        if current is None or current.pid == record.pid:
            self._record_path(record.key).unlink(missing_ok=True)
        users = self._users(record.key)
        if users.is_dir() and not self.live_leases(record.key):
            with contextlib.suppress(OSError):  # a lease written meanwhile keeps it
                users.rmdir()

    def live_leases(self, key: str) -> list[Path]:
        """The leases of processes still alive; the others are removed."""
        directory = self._users(key)
        live = []
        for lease in sorted(directory.glob("*")) if directory.is_dir() else []:
            pid = lease.name.split("-")[0]
            if pid.isdigit() and _owner_alive(int(pid), lease):
                live.append(lease)
            else:
                lease.unlink(missing_ok=True)
        return live

    def _healthy_record(self, spec: ServerSpec) -> Record | None:
        record = self.read_record(spec.key)
        if record is None:
            return None
        same = record.binary == str(spec.binary) and record.model == str(spec.model)
        if same and alive(record.pid) and serves(record):
            return record
        # Dead, answering as something else, or another binary or model: start afresh.
        self._stop(record)
        return None

    def _reap(self, keep: str) -> None:
        """Stop every server no live lease holds (their rune-lsp were killed); `keep`'s is
        about to be leased, or replaced when it does not answer."""
        for path in sorted(self.root.glob("*.json")):
            if path.stem == keep or self.live_leases(path.stem):
                continue
            record = self.read_record(path.stem)
            if record is None:  # unreadable: nothing to stop by
                path.unlink(missing_ok=True)
                continue
            self._stop(record)

    # --- starting and stopping --------------------------------------------------------------

    def _start(self, spec: ServerSpec, progress: Progress, cancel: Cancel) -> Record:
        if spec.port and not port_free(spec.port):
            raise PortTaken(
                f"port {spec.port} on {HOST} is taken by another program: set `localPort` to "
                "a free port, or to 0 to let rune pick one"
            )
        progress(Step("start", f"starting llama-server with {spec.alias}"))
        try:
            return self._launch(spec, spec.port or free_port(), cancel)
        except PortTaken:
            if spec.port:
                raise
            # Another program took the free port between our look and the server's bind.
            return self._launch(spec, free_port(), cancel)

    def _launch(self, spec: ServerSpec, port: int, cancel: Cancel) -> Record:
        self.root.mkdir(parents=True, exist_ok=True)
        log_path = self.root / f"{spec.key}.log"
        command = spec.command(port)
        with log_path.open("wb") as log_file:
            child = subprocess.Popen(
                command,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        processes.CHILDREN[child.pid] = child
        record = Record(
            child.pid,
            port,
            spec.alias,
            spec.key,
            str(spec.binary),
            str(spec.model),
            str(log_path),
            tuple(command[1:]),
        )
        # Recorded before it is healthy: a rune-lsp killed while it starts leaves it to reap.
        self._write_record(record)
        try:
            wait_healthy(child, record, cancel)
        except BaseException:
            self._stop(record)
            raise
        return record

    def _stop(self, record: Record) -> StopResult:
        """End the server (found by what it serves) and forget its record, unless it still
        answers: then the record stays (it may be joined) and the result says whom to end."""
        pids = processes.serving(record.pid, record.identity, record.port)
        if not pids and not processes.has_proc() and alive(record.pid) and serves(record):
            pids = {record.pid}  # no /proc (macOS): it answers as our model on our port
        group = processes.own_group(record.pid) if record.pid in pids else None
        left = processes.end(pids, group) if pids else set()
        if not alive(record.pid):
            processes.CHILDREN.pop(record.pid, None)
        if left or serves(record):
            result = StopResult("left running", _left_running(record, left))
            log.warning("%s", result.message)
            return result
        self._forget(record)
        return StopResult("stopped" if pids else "not running")

    def release(self, lease: Lease) -> StopResult:
        """Drop `lease`; stop the server when no live lease is left."""
        with exclusive(self.root / "supervisor.lock"):
            lease.file.unlink(missing_ok=True)
            if self.live_leases(lease.spec.key):
                return StopResult("in use")
            record = self.read_record(lease.spec.key)
            if record is None:
                return StopResult("not running")
            return self._stop(record)

    def revive(self, lease: Lease) -> Record | None:
        """A new server when the lease's one has died (None while it still runs)."""
        with exclusive(self.root / "supervisor.lock"):
            current = self.read_record(lease.spec.key)
            moved_on = current is not None and current.pid != lease.record.pid
            if moved_on and current is not None and alive(current.pid) and serves(current):
                return current  # another rune-lsp restarted it already
            if alive(lease.record.pid) and serves(lease.record):
                return None
            self._stop(lease.record)
            spec = lease.spec
            return self._start(spec, lambda step: None, Cancel())


class Lease:
    """One rune-lsp's use of the shared server; `release()` it when done."""

    def __init__(self, supervisor: Supervisor, spec: ServerSpec, record: Record, file: Path):
        self.supervisor = supervisor
        self.spec = spec
        self.record = record
        self.file = file
        self.restarts = 0
        self.released = False
        self._released_as = StopResult("in use")  # what a release still under way says

    @property
    def base_url(self) -> str:
        return self.record.base_url

    def answers(self) -> bool:
        """Whether its server answers a health request, serving its model (blocking)."""
        return serves(self.record)

    def revive(self) -> str | None:
        """After a failed request: restart a dead server, once per lease. Returns what to tell
        the user when it restarted it, None when the server is still up; raises ServerFailed
        when it died again."""
        died = exit_status(self.record.pid)
        log_end = tail(Path(self.record.log), 5)
        if self.restarts >= 1 and not alive(self.record.pid):
            raise ServerFailed(
                f"the local model server stopped again ({died}); not restarting it twice. "
                f"Its log {self.record.log} ends:\n{log_end}"
            )
        record = self.supervisor.revive(self)
        if record is None:
            return None
        self.restarts += 1
        self.record = record
        return (
            f"the local model server had stopped ({died}; log {self.record.log}): "
            f"restarted it on port {record.port}"
        )

    def release(self) -> StopResult:
        """Give the lease back, once; a second call returns what the first did."""
        if not self.released:
            self.released = True
            atexit.unregister(self.release)
            self._released_as = self.supervisor.release(self)
        return self._released_as


def _owner_alive(pid: int, lease: Path) -> bool:
    """The lease's owner still runs: its pid is alive and was not reused by a newer process."""
    try:
        started = lease.read_text(encoding="utf-8").strip()
    except OSError:
        return False
    return alive(pid) and (not started or processes.start_time(pid) in ("", started))


def _left_running(record: Record, left: set[int]) -> str:
    where = f"the local model server on port {record.port} ({record.alias})"
    if left:
        pids = " ".join(str(pid) for pid in sorted(left))
        return f"{where} could not be stopped: process {pids} outlived SIGKILL; end it: kill {pids}"
    holders = " ".join(str(pid) for pid in sorted(processes.listeners(record.port)))
    end = f"end it: kill {holders}" if holders else "end the process that serves it yourself"
    return (
        f"{where} could not be stopped: it still answers, and no process of yours that "
        f"listens there runs {record.model} with rune's arguments (a `localServerPath` "
        f"script that starts llama-server under another command line or session?); {end}"
    )
