"""The `release` and `release_multi` corpora (issue 26, point 3): bugs real people made and
fixed in a patch release of a small pure-Python library, built at bench time from the two
releases' sdists on PyPI. Only the recipes (release_bugs.json: names, versions, paths, hunk
numbers, test ids) are committed; no third-party code is.

A recipe names a package, a release and the patch release after it, a module the newer
release changed, the newer release's test file and the tests in it that fail on the older
source and pass with only the fix applied (bench/effect/mine_release_bugs.py finds them). The
fix is either the newer module whole (one or two small hunks: the strict rule) or, when the
recipe names a `hunk`, that one hunk of the module's diff applied alone to the older module
(bench/effect/release_changes.py). `build` downloads both sdists into CACHE (PyPI's JSON API,
digest checked: bench/effect/pypi_sdists.py) and writes each recipe in the `ws/` layout of
bench/effect/corpus.py:

    ws/<package>/...                 the older release's library (a src/ layout flattened),
                                     its own tests left out
    ws/<tests>/test_x.py             the newer release's test file, with the sdist's root
                                     conftest.py and the non-test modules of its test folders
                                     (conftest.py, __init__.py, helpers)
    ws/<name>-<old>.dist-info/       the older sdist's PKG-INFO as METADATA, so a package that
                                     reads its own version (importlib.metadata) imports
    reference.py                     the fixed module: the newer release's, or the older one
                                     with the fix's one hunk
    task.json                        `release`: pointed at the module; `release_multi`: at the
                                     test file ("The test T fails. Fix the bug.")

Whether each task fails before and passes after is the bench's soundness check
(corpus.check_task), as for every corpus.
"""

from __future__ import annotations

import json
import re
import shutil
import tarfile
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from bench.effect import release_changes as changes
from bench.effect.corpus import WORKSPACE
from bench.effect.pypi_sdists import CACHE, SdistError, sdist, slug
from bench.effect.real_bugs import Built
from bench.effect.release_changes import Change

RECIPES = Path(__file__).with_name("release_bugs.json")
KINDS = ("release", "release_multi")
#: Folders of an sdist that hold no library code.
NOT_LIBRARY = frozenset(
    {"tests", "test", "testing", "docs", "doc", "examples", "example", "benchmarks", "bench"}
)
#: Top-level modules of an sdist that are build or test scaffolding, not the library.
NOT_MODULES = frozenset(
    {"setup.py", "conftest.py", "noxfile.py", "tasks.py", "fabfile.py", "test.py", "tests.py"}
)
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
    #: None: the fix is the newer release's whole `module` (one or two small hunks). Else the
    #: number of the one hunk of the module's diff (release_changes.hunks) that is the fix:
    #: the reference is the older module with only that hunk applied.
    hunk: int | None = None
    #: The hunks the release changed in `module`, version lines left out.
    module_hunks: int = 0

    @property
    def strict(self) -> bool:
        """The strict rule: the release changed this one module, and the fix is all of it."""
        return self.modules_changed == 1 and self.hunk is None

    @property
    def name(self) -> str:
        return f"{slug(self.package)}_{self.old}_{self.new}"

    def check(self) -> None:
        bad = [i for i in self.test_ids if not TEST_ID.match(i) or not i.startswith(self.test)]
        if not self.test_ids or bad:
            raise RecipeError(f"{self.name}: test ids {bad or 'none'} are not ids in {self.test}")


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
    return changes.change(
        {name: _text(path) for name, path in before.items() if name.endswith(".py")},
        {name: _text(path) for name, path in after.items() if name.endswith(".py")},
    )


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
    return slug(fields.get("Name", "unknown")), fields.get("Version", "0")


def _copy(source: Path, destination: Path) -> None:
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, destination)


def reference(recipe: Recipe, old: Path, new: Path) -> str:
    """The fixed module: the newer release's, or the older one with only the fix's hunk."""
    newer, older = library_files(new).get(recipe.module), library_files(old).get(recipe.module)
    if newer is None:
        raise RecipeError(f"{new.name} has no module {recipe.module}")
    if recipe.hunk is None:
        return _text(newer)
    if older is None:
        raise RecipeError(f"{old.name} has no module {recipe.module}")
    try:
        return changes.apply_hunk(_text(older), _text(newer), recipe.hunk)
    except IndexError as exc:
        raise RecipeError(f"{recipe.name}: {exc}") from exc


def write_task(recipe: Recipe, old: Path, new: Path, kind: str, destination: Path) -> None:
    lay_out(old, new, recipe.test, destination / WORKSPACE)
    fixed = reference(recipe, old, new)
    (destination / "reference.py").write_text(fixed, encoding="utf-8")
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
        except (RecipeError, SdistError, OSError, tarfile.TarError, zipfile.BadZipFile) as exc:
            skipped[recipe.name] = str(exc)
            shutil.rmtree(root / name, ignore_errors=True)
            continue
        written.append(name)
    return Built(root, tuple(written), skipped)
