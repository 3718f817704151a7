"""One llama-server per model, shared by every rune-lsp on the machine, stopped with the last.

The state directory holds, per server (`key`: the model alias and a digest of what it runs
with), a record of the running server (`<key>.json`: pid, port, binary, model, log) and one
lease file per rune-lsp using it (`<key>.users/`). Two editors with different settings (say
another `contextLength`) get two servers rather than one stopping the other's.
Everything that reads or changes them holds `supervisor.lock`. A lease whose process died is
pruned; the server stops when a release leaves no live lease. The server is started in its own
session, so the Ctrl-C of the rune-lsp that started it does not take it from the others.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import signal
import socket
import subprocess
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

from rune_lsp.localmodel.errors import PortTaken, ServerFailed
from rune_lsp.localmodel.lock import exclusive
from rune_lsp.localmodel.proc import tail
from rune_lsp.localmodel.progress import Cancel, Progress, ProvisionCancelled, Step
from rune_lsp.text_clip import tail_lines

HOST = "127.0.0.1"
#: Loading a 1.1 GB model from a cold disk on a busy machine can take a while.
HEALTH_TIMEOUT = 180.0
_STOP_WAIT = 10.0
#: Tokens one answer may take at most. A small model on a slow CPU can ramble for many minutes
#: (1.5 tokens/s on 2 busy cores) while it holds the one slot; an edit of a long file fits.
#: A request's own `max_tokens` still decides below this.
MAX_ANSWER_TOKENS = 2048
_BIND_FAILED = ("couldn't bind", "address already in use", "failed to bind")

#: Servers this process started: their exit status is only known (and reaped) through these.
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


@dataclass(frozen=True)
class ServerSpec:
    """What to run: a checked binary, a verified model, and how to serve it."""

    binary: Path
    model: Path
    alias: str
    port: int  # 0: pick a free one
    threads: int
    context: int

    @property
    def key(self) -> str:
        what = f"{self.binary}|{self.model}|{self.context}|{self.threads}"
        return f"{self.alias}-{hashlib.sha256(what.encode()).hexdigest()[:8]}"

    def command(self, port: int) -> list[str]:
        # --jinja: the model's own chat template, which carries its tool-call format.
        # --parallel 1: one slot gets the whole context; requests queue.
        return [
            str(self.binary), "-m", str(self.model), "--alias", self.alias,
            "--host", HOST, "--port", str(port), "--jinja", "--ctx-size", str(self.context),
            "--threads", str(self.threads), "--parallel", "1",
            "--n-predict", str(MAX_ANSWER_TOKENS),
        ]  # fmt: skip


@dataclass(frozen=True)
class Record:
    pid: int
    port: int
    alias: str
    key: str
    binary: str
    model: str
    log: str

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"


class Supervisor:
    def __init__(self, state_dir: Path) -> None:
        self.root = state_dir / "local-model"

    def acquire(self, spec: ServerSpec, *, progress: Progress, cancel: Cancel) -> Lease:
        """A lease on a healthy server for `spec`: the running one, else a new one."""
        with exclusive(self.root / "supervisor.lock", cancel=cancel):
            record = self._healthy_record(spec)
            if record is None:
                record = self._start(spec, progress, cancel)
            lease_file = self._users(spec.key) / f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
            lease_file.parent.mkdir(parents=True, exist_ok=True)
            lease_file.write_text("", encoding="utf-8")
        lease = Lease(self, spec, record, lease_file)
        # A rune-lsp that exits without closing its provider (the editor went away) still
        # gives its lease back; only a hard kill leaves one, pruned by the next release.
        atexit.register(lease.release)
        return lease

    # --- records and leases -----------------------------------------------------------------

    def _record_path(self, key: str) -> Path:
        return self.root / f"{key}.json"

    def _users(self, key: str) -> Path:
        return self.root / f"{key}.users"

    def read_record(self, key: str) -> Record | None:
        try:
            return Record(**json.loads(self._record_path(key).read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return None

    def _write_record(self, record: Record) -> None:
        path = self._record_path(record.key)
        partial = path.with_suffix(".json.partial")
        partial.write_text(json.dumps(asdict(record)), encoding="utf-8")
        partial.replace(path)

    def live_leases(self, key: str) -> list[Path]:
        """The leases of processes still alive; the others are removed."""
        directory = self._users(key)
        live = []
        for lease in sorted(directory.glob("*")) if directory.is_dir() else []:
            pid = lease.name.split("-")[0]
            if pid.isdigit() and _alive(int(pid)):
                live.append(lease)
            else:
                lease.unlink(missing_ok=True)
        return live

    def _healthy_record(self, spec: ServerSpec) -> Record | None:
        record = self.read_record(spec.key)
        if record is None:
            return None
        same = record.binary == str(spec.binary) and record.model == str(spec.model)
        if same and _alive(record.pid) and _serves(record):
            return record
        # Dead, answering as something else, or another binary or model: start afresh.
        self._stop(record)
        return None

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
        with log_path.open("wb") as log:
            child = subprocess.Popen(
                spec.command(port),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        _CHILDREN[child.pid] = child
        record = Record(
            child.pid, port, spec.alias, spec.key, str(spec.binary), str(spec.model), str(log_path)
        )
        try:
            _wait_healthy(child, record, cancel)
        except BaseException:
            self._stop(record)
            raise
        self._write_record(record)
        return record

    def _stop(self, record: Record) -> None:
        """End the server (if it is still ours and alive) and forget its record."""
        if _alive(record.pid) and _is_server(record):
            _terminate(record.pid)
        _CHILDREN.pop(record.pid, None)
        current = self.read_record(record.key)
        if current is not None and current.pid == record.pid:
            self._record_path(record.key).unlink(missing_ok=True)

    def release(self, lease: Lease) -> bool:
        """Drop `lease`; stop the server when no live lease is left. True when it stopped."""
        with exclusive(self.root / "supervisor.lock"):
            lease.file.unlink(missing_ok=True)
            if self.live_leases(lease.spec.key):
                return False
            record = self.read_record(lease.spec.key)
            if record is not None:
                self._stop(record)
            return True

    def revive(self, lease: Lease) -> Record | None:
        """A new server when the lease's one has died (None while it still runs)."""
        with exclusive(self.root / "supervisor.lock"):
            current = self.read_record(lease.spec.key)
            moved_on = current is not None and current.pid != lease.record.pid
            if moved_on and current is not None and _alive(current.pid) and _serves(current):
                return current  # another rune-lsp restarted it already
            if _alive(lease.record.pid) and _serves(lease.record):
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

    @property
    def base_url(self) -> str:
        return self.record.base_url

    def revive(self) -> str | None:
        """After a failed request: restart a dead server, once per lease. Returns what to tell
        the user when it restarted it, None when the server is still up; raises ServerFailed
        when it died again."""
        died = exit_status(self.record.pid)
        log = tail(Path(self.record.log), 5)
        if self.restarts >= 1 and not _alive(self.record.pid):
            raise ServerFailed(
                f"the local model server stopped again ({died}); not restarting it twice. "
                f"Its log {self.record.log} ends:\n{log}"
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

    def release(self) -> bool:
        if self.released:
            return False
        self.released = True
        atexit.unregister(self.release)
        return self.supervisor.release(self)


# --- processes and ports ----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((HOST, port))
        except OSError:
            return False
    return True


def _alive(pid: int) -> bool:
    child = _CHILDREN.get(pid)
    if child is not None:
        return child.poll() is None  # a zombie child still answers kill(0)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def exit_status(pid: int) -> str:
    child = _CHILDREN.get(pid)
    if child is not None and child.poll() is not None:
        code = child.returncode
        return f"killed by signal {-code}" if code < 0 else f"exit status {code}"
    return "not running" if not _alive(pid) else "running"


def _is_server(record: Record) -> bool:
    """Whether pid is still the server we started, not a process that reused its number."""
    if record.pid in _CHILDREN:
        return True
    cmdline = Path(f"/proc/{record.pid}/cmdline")
    if cmdline.parent.parent.is_dir() and Path("/proc/self").exists():
        try:
            return record.binary.encode() in cmdline.read_bytes()
        except OSError:
            return False
    return _serves(record)  # no /proc (macOS): it answers as our model on our port


def _terminate(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + _STOP_WAIT
    child = _CHILDREN.get(pid)
    while time.monotonic() < deadline:
        if child is not None:
            if child.poll() is not None:
                return
        elif not _alive(pid):
            return
        time.sleep(0.1)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    if child is not None:
        child.wait()


def _serves(record: Record, timeout: float = 3.0) -> bool:
    """Healthy and serving this record's model under its alias."""
    try:
        health = httpx.get(f"http://{HOST}:{record.port}/health", timeout=timeout)
        if health.status_code != 200:
            return False
        models = httpx.get(f"{record.base_url}/models", timeout=timeout).json()
    except (httpx.HTTPError, ValueError):
        return False
    ids = [entry.get("id") for entry in models.get("data", []) if isinstance(entry, dict)]
    return record.alias in ids


def _wait_healthy(child: subprocess.Popen[bytes], record: Record, cancel: Cancel) -> None:
    deadline = time.monotonic() + HEALTH_TIMEOUT
    while time.monotonic() < deadline:
        if cancel.is_set():
            raise ProvisionCancelled("cancelled while the model server was starting")
        if child.poll() is not None:
            log = tail(Path(record.log))
            if any(sign in log.lower() for sign in _BIND_FAILED):
                raise PortTaken(f"port {record.port} on {HOST} is taken: {tail_lines(log, 1)}")
            raise ServerFailed(
                f"llama-server exited ({exit_status(child.pid)}) while starting; its log "
                f"{record.log} ends:\n{log}"
            )
        try:
            if httpx.get(f"http://{HOST}:{record.port}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass  # not listening yet
        time.sleep(0.3)
    raise ServerFailed(
        f"llama-server did not become healthy within {HEALTH_TIMEOUT:g} s; its log "
        f"{record.log} ends:\n{tail(Path(record.log))}"
    )
