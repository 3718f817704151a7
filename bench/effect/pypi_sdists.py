"""Releases and sdists of a package on PyPI, for the `release` corpora (bench/effect/
release_bugs.py builds their tasks, bench/effect/mine_release_bugs.py finds their recipes).

One request to PyPI's JSON API (`https://pypi.org/pypi/NAME/json`) gives a package's releases
and each sdist's address and sha256 digest; the index of sdists is kept in
CACHE/index/NAME.json. An sdist is downloaded once into CACHE/sdists/NAME-V/, checked against
its digest, and unpacked into CACHE/src/NAME-V/. No build backend runs (which `pip download`
does to read an sdist's metadata: 20 to 40 s each on a loaded machine).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import tarfile
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

from rune_lsp.modelfetch import cache_root

#: Beside the models and llama-server (RUNE_CACHE_DIR, else the XDG cache): one rule for all.
CACHE = cache_root() / "release-bugs"
PYPI = "https://pypi.org/pypi"
DOWNLOAD_TIMEOUT = 120.0


class SdistError(ValueError):
    """A package's release has no sdist that can be had."""


@dataclass(frozen=True)
class Sdist:
    filename: str
    url: str
    sha256: str


def slug(package: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", package).lower()


def releases(package: str, cache: Path = CACHE) -> dict[str, Sdist]:
    """The package's releases that have an sdist, asked of PyPI once per cache."""
    known = cache / "index" / f"{slug(package)}.json"
    if not known.is_file():
        known.parent.mkdir(parents=True, exist_ok=True)
        partial = known.with_name(known.name + ".partial")
        partial.write_text(json.dumps(_ask(package), indent=1) + "\n", encoding="utf-8")
        partial.rename(known)
    index = json.loads(known.read_text(encoding="utf-8"))
    return {version: Sdist(**entry) for version, entry in index.items()}


def _ask(package: str) -> dict[str, dict[str, str]]:
    try:
        response = httpx.get(f"{PYPI}/{package}/json", timeout=DOWNLOAD_TIMEOUT)
        response.raise_for_status()
        files = response.json()["releases"]
    except (httpx.HTTPError, ValueError, KeyError) as exc:
        raise SdistError(f"PyPI has no releases of {package}: {exc}") from exc
    index = {}
    for version, uploads in files.items():
        sdists = [u for u in uploads if u.get("packagetype") == "sdist" and not u.get("yanked")]
        if sdists:
            chosen = sdists[0]
            url = str(response.url.join(chosen["url"]))
            entry = Sdist(chosen["filename"], url, chosen["digests"]["sha256"])
            index[version] = asdict(entry)
    return index


def sdist(package: str, version: str, cache: Path = CACHE) -> Path:
    """The unpacked sdist of `package==version` (downloaded into `cache` once)."""
    unpacked = cache / "src" / f"{slug(package)}-{version}"
    if unpacked.is_dir():
        return _only_child(unpacked)
    archives = cache / "sdists" / f"{slug(package)}-{version}"
    if not archives.is_dir() or not any(archives.iterdir()):
        download(package, version, archives, cache)
    archive = next(iter(sorted(archives.iterdir())))
    partial = unpacked.with_name(unpacked.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        unpack(archive, partial)
    except (OSError, tarfile.TarError, zipfile.BadZipFile) as exc:
        raise SdistError(f"{archive.name} does not unpack: {exc}") from exc
    partial.rename(unpacked)
    return _only_child(unpacked)


def download(package: str, version: str, destination: Path, cache: Path = CACHE) -> None:
    """Download the release's sdist into `destination`, refusing one whose digest differs."""
    found = releases(package, cache).get(version)
    if found is None:
        raise SdistError(f"PyPI has no sdist of {package}=={version}")
    try:
        response = httpx.get(found.url, timeout=DOWNLOAD_TIMEOUT, follow_redirects=True)
        response.raise_for_status()
    except httpx.HTTPError as exc:
        raise SdistError(f"download of {package}=={version}: {exc}") from exc
    if hashlib.sha256(response.content).hexdigest() != found.sha256:
        raise SdistError(f"{found.filename}: the sha256 digest is not PyPI's")
    partial = destination.with_name(destination.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    (partial / Path(found.filename).name).write_bytes(response.content)
    partial.rename(destination)


def unpack(archive: Path, destination: Path) -> None:
    """Unpack a .tar.gz or .zip sdist, refusing members that would land outside."""
    destination.mkdir(parents=True)
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as packed:
            for member in packed.namelist():
                _inside(destination, member)
            packed.extractall(destination)
        return
    with tarfile.open(archive) as packed:
        packed.extractall(destination, filter="data")


def _inside(root: Path, member: str) -> None:
    if not (root / member).resolve().is_relative_to(root.resolve()):
        raise SdistError(f"{member} would unpack outside {root}")


def _only_child(unpacked: Path) -> Path:
    children = [p for p in unpacked.iterdir() if p.is_dir()]
    if len(children) != 1:
        raise SdistError(f"{unpacked} does not hold one sdist folder")
    return children[0]
