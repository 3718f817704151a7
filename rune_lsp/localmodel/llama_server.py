"""One llama-server as rune runs it: what it runs and with what (`ServerSpec`), the record of a
running one (`Record`, kept on disk by `supervisor`), and whether it is up and serving its model.
"""

from __future__ import annotations

import hashlib
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from rune_lsp.localmodel.errors import PortTaken, ServerFailed
from rune_lsp.localmodel.proc import tail
from rune_lsp.localmodel.processes import HOST, exit_status
from rune_lsp.localmodel.progress import Cancel, ProvisionCancelled
from rune_lsp.text_clip import tail_lines

#: Loading a 1.1 GB model from a cold disk on a busy machine can take a while.
HEALTH_TIMEOUT = 180.0
#: Tokens one answer may take at most. A small model on a slow CPU can ramble for many minutes
#: (1.5 tokens/s on 2 busy cores) while it holds the one slot; an edit of a long file fits.
#: A request's own `max_tokens` still decides below this.
MAX_ANSWER_TOKENS = 2048
_BIND_FAILED = ("couldn't bind", "address already in use", "failed to bind")


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
        # All but the binary are also how a stop finds the server (`processes.runs`).
        return [
            str(self.binary), "-m", str(self.model), "--alias", self.alias,
            "--host", HOST, "--port", str(port), "--jinja", "--ctx-size", str(self.context),
            "--threads", str(self.threads), "--parallel", "1",
            "--n-predict", str(MAX_ANSWER_TOKENS),
        ]  # fmt: skip


@dataclass(frozen=True)
class Record:
    pid: int  # the process rune started: llama-server, or the wrapper script that runs it
    port: int
    alias: str
    key: str
    binary: str
    model: str
    log: str
    #: What the binary was given (`ServerSpec.command` less the binary); empty in a record
    #: written before it was kept, found then by its model and port alone.
    args: tuple[str, ...] = ()

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    @property
    def identity(self) -> tuple[str, ...]:
        """The arguments that tell this server's processes from any other's."""
        return self.args or ("-m", self.model)


def serves(record: Record, timeout: float = 3.0) -> bool:
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


def wait_healthy(child: subprocess.Popen[bytes], record: Record, cancel: Cancel) -> None:
    """Until the just-started server answers its health request; raises when it exits first
    (`PortTaken` when its port was taken), when `cancel` is set, or after `HEALTH_TIMEOUT`."""
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
