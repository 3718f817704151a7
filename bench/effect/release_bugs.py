"""The `release` and `release_multi` corpora (issue 26, point 3): bugs real people made and
fixed in a patch release of a small pure-Python library, built at bench time from the two
releases' sdists on PyPI. Only the recipes (release_bugs.json: names, versions, paths, test
ids) are committed; no third-party code is.

A recipe names a package, a release and the patch release after it, a module the newer
release changed by one or two hunks, the newer release's test file and the tests in it that
fail on the older source and pass with only that module new (bench/effect/
mine_release_bugs.py finds them). `build` downloads both sdists into CACHE (`pip download`,
the registry's own client) and writes each recipe in the `ws/` layout of
bench/effect/corpus.py:

    ws/<package>/...                 the older release's library (a src/ layout flattened),
                                     its own tests left out
    ws/<tests>/test_x.py             the newer release's test file, with the sdist's root
                                     conftest.py and the non-test modules of its test folders
                                     (conftest.py, __init__.py, helpers)
    ws/<name>-<old>.dist-info/       the older sdist's PKG-INFO as METADATA, so a package that
                                     reads its own version (importlib.metadata) imports
    reference.py                     the newer release's module
    task.json                        `release`: pointed at the module; `release_multi`: at the
                                     test file ("The test T fails. Fix the bug.")

Whether each task fails before and passes after is the bench's soundness check
(corpus.check_task), as for every corpus.
"""

from __future__ import annotations

import difflib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from bench.effect.corpus import WORKSPACE
from bench.effect.real_bugs import Built

RECIPES = Path(__file__).with_name("release_bugs.json")
CACHE = Path.home() / ".cache" / "rune-lsp" / "release-bugs"
KINDS = ("release", "release_multi")
MAX_HUNKS = 2
#: A release that changed more modules than this is a refactoring, not a fix.
MAX_MODULES = 6
MAX_CHANGED_LINES = 15
DOWNLOAD_TIMEOUT = 300.0
#: Folders of an sdist that hold no library code.
NOT_LIBRARY = frozenset(
    {"tests", "test", "testing", "docs", "doc", "examples", "example", "benchmarks", "bench"}
)
#: Top-level modules of an sdist that are build or test scaffolding, not the library.
NOT_MODULES = frozenset(
    {"setup.py", "conftest.py", "noxfile.py", "tasks.py", "fabfile.py", "test.py", "tests.py"}
)
#: A line that only names the release: a version bump is no part of the fix.
VERSION_LINE = re.compile(r"""^\s*(__version__|version|VERSION|__version_info__)\s*[:=]""")
#: A test id the check runs, shell-safe: the file, then `::`-separated names (no parameters).
TEST_ID = re.compile(r"^[\w./-]+\.py(::\w+)+$")


class RecipeError(ValueError):
    """A recipe, or the sdist it names, is not usable."""


@dataclass(frozen=True)
class Recipe:
    package: str  # its name on PyPI
    old: str  # the release with the bug
    new: str  # the patch release that fixed it
    module: str  # the module with the bug, relative to the workspace
    test: str  # the newer release's test file, relative to the workspace
    test_ids: tuple[str, ...]  # node ids in `test` that fail on `old` and pass on `new`
    #: Modules the release changed: 1, or more when the tests pass with `module` alone new.
    modules_changed: int = 1

    @property
    def name(self) -> str:
        return f"{_slug(self.package)}_{self.old}_{self.new}"

    def check(self) -> None:
        bad = [i for i in self.test_ids if not TEST_ID.match(i) or not i.startswith(self.test)]
        if not self.test_ids or bad:
            raise RecipeError(f"{self.name}: test ids {bad or 'none'} are not ids in {self.test}")


@dataclass(frozen=True)
class ModuleChange:
    """How one module differs between two releases, version lines left out."""

    module: str  # its workspace path
    hunks: int
    lines: int  # lines removed plus lines added

    def why_not(self) -> str | None:
        """Why this is not a fix of one or two small hunks, or None."""
        if not 1 <= self.hunks <= MAX_HUNKS:
            return f"{self.hunks} hunks"
        if self.lines > MAX_CHANGED_LINES:
            return f"{self.lines} lines changed"
        return None


@dataclass(frozen=True)
class Change:
    """How the library's modules differ between two releases."""

    modules: tuple[ModuleChange, ...]

    def candidates(self) -> tuple[str, ...]:
        """The modules whose own change is a small fix: the one the newer tests need is found
        by running them with only that module new (mine_release_bugs.try_test)."""
        if self.why_not():
            return ()
        return tuple(m.module for m in self.modules if m.why_not() is None)

    def why_not(self) -> str | None:
        """Why no module of the change can be a task, or None."""
        if not self.modules or len(self.modules) > MAX_MODULES:
            return f"{len(self.modules)} modules changed"
        if len(self.modules) == 1:
            return self.modules[0].why_not()
        if all(m.why_not() for m in self.modules):
            return f"no small change among {len(self.modules)} modules"
        return None


def load_recipes(path: Path = RECIPES) -> tuple[Recipe, ...]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return tuple(recipe_from(entry) for entry in raw["recipes"])


def recipe_from(entry: Mapping[str, Any]) -> Recipe:
    """A recipe from its JSON form (release_bugs.json, the miner's ledger), checked."""
    try:
        recipe = Recipe(**{**entry, "test_ids": tuple(entry["test_ids"])})
    except (TypeError, KeyError) as exc:
        raise RecipeError(f"not a recipe: {exc}") from exc
    recipe.check()
    return recipe


def write_recipes(path: Path, recipes: Iterable[Recipe], note: str) -> None:
    entries = [asdict(r) for r in recipes]
    path.write_text(json.dumps({"note": note, "recipes": entries}, indent=1) + "\n", "utf-8")


def _slug(package: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", package).lower()


# --- sdists -------------------------------------------------------------------------------


def sdist(package: str, version: str, cache: Path = CACHE) -> Path:
    """The unpacked sdist of `package==version` (downloaded by pip into `cache` once)."""
    unpacked = cache / "src" / f"{_slug(package)}-{version}"
    if unpacked.is_dir():
        return _only_child(unpacked)
    archives = cache / "sdists" / f"{_slug(package)}-{version}"
    if not archives.is_dir() or not any(archives.iterdir()):
        _download(package, version, archives)
    archive = next(iter(sorted(archives.iterdir())))
    partial = unpacked.with_name(unpacked.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    unpack(archive, partial)
    partial.rename(unpacked)
    return _only_child(unpacked)


def _download(package: str, version: str, destination: Path) -> None:
    """`pip download` the sdist: first with the build backends this Python has (pip reads the
    sdist's metadata, a few seconds), else in pip's own isolated build environment (which
    fetches the backend each time: several times slower)."""
    partial = destination.with_name(destination.name + ".partial")
    argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
    argv += ["--quiet", f"{package}=={version}", "-d", str(partial)]
    error = "no sdist"
    for isolation in (["--no-build-isolation"], []):
        shutil.rmtree(partial, ignore_errors=True)
        try:
            done = subprocess.run(
                [*argv, *isolation],
                capture_output=True,
                text=True,
                timeout=DOWNLOAD_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            error = "timed out"
            continue
        if done.returncode == 0 and partial.is_dir() and any(partial.iterdir()):
            partial.rename(destination)
            return
        error = ((done.stderr or done.stdout).strip().splitlines() or [error])[-1]
    raise RecipeError(f"pip download {package}=={version}: {error}")


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
        raise RecipeError(f"{member} would unpack outside {root}")


def _only_child(unpacked: Path) -> Path:
    children = [p for p in unpacked.iterdir() if p.is_dir()]
    if len(children) != 1:
        raise RecipeError(f"{unpacked} does not hold one sdist folder")
    return children[0]


# --- the library and its change -----------------------------------------------------------


def library_root(source: Path) -> Path:
    """Where the importable code sits: `src/` in a src layout, else the sdist's root."""
    src = source / "src"
    return src if src.is_dir() else source


def library_files(source: Path) -> dict[str, Path]:
    """The library's files by workspace path (src/ flattened): its top-level packages' files
    outside test folders and its top-level modules, scaffolding and test modules left out."""
    root = library_root(source)
    found: dict[str, Path] = {}
    for entry in sorted(root.iterdir()):
        if entry.is_file() and entry.suffix == ".py" and _is_library_module(entry.name):
            found[entry.name] = entry
        elif entry.is_dir() and (entry / "__init__.py").is_file():
            if entry.name in NOT_LIBRARY:
                continue
            for path in sorted(entry.rglob("*")):
                inner = path.relative_to(root)
                skipped = NOT_LIBRARY & set(inner.parts[1:-1]) or "__pycache__" in inner.parts
                if path.is_file() and not skipped:
                    found[inner.as_posix()] = path
    return found


def _is_library_module(name: str) -> bool:
    return (
        name not in NOT_MODULES and not name.startswith("test_") and not name.endswith("_test.py")
    )


def change(old: Path, new: Path) -> Change:
    """How the library's Python modules differ from the old sdist to the new one."""
    before, after = library_files(old), library_files(new)
    modules = []
    for name in sorted(set(before) | set(after)):
        if not name.endswith(".py") or name.rsplit("/", 1)[-1] in {"_version.py", "version.py"}:
            continue
        counted, lines = code_hunks(_text(before.get(name)), _text(after.get(name)))
        if counted:
            modules.append(ModuleChange(name, counted, lines))
    return Change(tuple(modules))


def code_hunks(before: str, after: str) -> tuple[int, int]:
    """The hunks of a diff that change more than a version line, and their changed lines."""
    counted, lines = 0, 0
    for hunk in _hunks(before, after):
        if not all(VERSION_LINE.match(line[1:]) for line in hunk):
            counted += 1
            lines += len(hunk)
    return counted, lines


def _hunks(before: str, after: str) -> list[list[str]]:
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), n=0, lineterm="")
    found: list[list[str]] = []
    for line in diff:
        if line.startswith("@@"):
            found.append([])
        elif found and line[:1] in "+-" and not line.startswith(("+++", "---")):
            found[-1].append(line)
    return found


def _text(path: Path | None) -> str:
    return path.read_text(encoding="utf-8", errors="replace") if path is not None else ""


def test_files(source: Path) -> dict[str, Path]:
    """The sdist's test modules (pytest's default names, and a top-level tests.py) by
    workspace path (src/ flattened, as the library is)."""
    found = {}
    for path in sorted(source.rglob("*.py")):
        inner = path.relative_to(source)
        if "__pycache__" in inner.parts or inner.parts[0] in {"docs", "doc", "build"}:
            continue
        if inner.parts[0] == "src":
            inner = PurePosixPath(*inner.parts[1:])  # type: ignore[assignment]
        if path.name.startswith("test_") or path.name.endswith("_test.py"):
            found[PurePosixPath(inner).as_posix()] = path
        elif path.name in {"tests.py", "test.py"} and len(inner.parts) == 1:
            found[path.name] = path
    return found


def changed_tests(old: Path, new: Path) -> list[str]:
    """The newer sdist's test files that are new or differ from the older one's."""
    before, after = test_files(old), test_files(new)
    return [
        name
        for name, path in after.items()
        if name not in before or _text(before[name]) != _text(path)
    ]


# --- the workspace ------------------------------------------------------------------------


def lay_out(old: Path, new: Path, test: str, destination: Path) -> Path:
    """The workspace of a recipe: the old library, the new test file and what it needs from
    the new sdist (conftest.py and __init__.py on its way down), the old PKG-INFO."""
    destination.mkdir(parents=True, exist_ok=True)
    for name, path in library_files(old).items():
        _copy(path, destination / name)
    tests = test_files(new)
    if test not in tests:
        raise RecipeError(f"{new.name} has no test file {test}")
    _copy(tests[test], destination / test)
    for helper in test_helpers(new, test):
        _copy(helper.source, destination / helper.path)
    info = old / "PKG-INFO"
    if info.is_file():
        name, version = _dist_name(info)
        _copy(info, destination / f"{name}-{version}.dist-info" / "METADATA")
    return destination


@dataclass(frozen=True)
class Helper:
    path: str  # in the workspace
    source: Path  # in the sdist


def test_helpers(source: Path, test: str) -> list[Helper]:
    """What a test file imports from beside it: the sdist root's conftest.py, and in each
    test folder on the way down to the test file its Python modules that are not tests
    themselves (conftest.py, __init__.py, helpers such as tests/base.py)."""
    library = library_root(source)
    base = library if test.split("/", 1)[0] in _top(library) else source
    found = []
    if (base / "conftest.py").is_file():
        found.append(Helper("conftest.py", base / "conftest.py"))
    parts = PurePosixPath(test).parts[:-1]
    for depth in range(1, len(parts) + 1):
        folder = PurePosixPath(*parts[:depth])
        if not NOT_LIBRARY & set(folder.parts):  # the library's own folder: copied from old
            continue
        for path in sorted((base / folder).glob("*.py")):
            if _is_library_module(path.name) or path.name == "conftest.py":
                found.append(Helper((folder / path.name).as_posix(), path))
    return found


def _top(root: Path) -> set[str]:
    return {p.name for p in root.iterdir()} if root.is_dir() else set()


def _dist_name(info: Path) -> tuple[str, str]:
    fields = dict(
        line.split(": ", 1)
        for line in info.read_text(encoding="utf-8", errors="replace").splitlines()
        if ": " in line and line.split(": ", 1)[0] in {"Name", "Version"}
    )
    return _slug(fields.get("Name", "unknown")), fields.get("Version", "0")


def _copy(source: Path, destination: Path) -> None:
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, destination)


def write_task(recipe: Recipe, old: Path, new: Path, kind: str, destination: Path) -> None:
    lay_out(old, new, recipe.test, destination / WORKSPACE)
    reference = library_files(new).get(recipe.module)
    if reference is None:
        raise RecipeError(f"{new.name} has no module {recipe.module}")
    _copy(reference, destination / "reference.py")
    meta = {
        "kind": kind,
        "bug": f"{recipe.package} {recipe.old} -> {recipe.new}: {recipe.module}",
        "program": recipe.module,
        "test": recipe.test,
        "target": recipe.module if kind == "release" else recipe.test,
        "test_ids": list(recipe.test_ids),
    }
    (destination / "task.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def build(
    root: Path, kind: str, recipes: Sequence[Recipe] | None = None, cache: Path = CACHE
) -> Built:
    """Write a task of `kind` for each recipe into `root`; a recipe whose sdists cannot be had
    is reported in `skipped` (the soundness check reports the rest)."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; choose from {', '.join(KINDS)}")
    chosen = load_recipes() if recipes is None else recipes
    root.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    skipped: dict[str, str] = {}
    for recipe in chosen:
        name = f"{len(written) + 1:02d}_{recipe.name}"
        try:
            old, new = (
                sdist(recipe.package, recipe.old, cache),
                sdist(recipe.package, recipe.new, cache),
            )
            write_task(recipe, old, new, kind, root / name)
        except (RecipeError, OSError, tarfile.TarError, zipfile.BadZipFile) as exc:
            skipped[recipe.name] = str(exc)
            shutil.rmtree(root / name, ignore_errors=True)
            continue
        written.append(name)
    return Built(root, tuple(written), skipped)
