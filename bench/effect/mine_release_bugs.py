"""Find the recipes of the `release` corpora (bench/effect/release_bugs.py) on PyPI.

    nice -n 19 .venv/bin/python -m bench.effect.mine_release_bugs            # every package
    nice -n 19 .venv/bin/python -m bench.effect.mine_release_bugs humanize parse
    .venv/bin/python -m bench.effect.mine_release_bugs --recipes-only   # from the verdicts

For each hand-picked package (PACKAGES: small, pure Python, tests shipped in the sdist): one
`pip index versions`, then each pair of consecutive releases of the same major.minor (a patch
release and the one before it; the newest MAX_PAIRS pairs), both sdists downloaded by
`pip download --no-deps --no-binary :all:` into release_bugs.CACHE. A pair is kept when the
library changed in at most 6 modules, one of them by one or two hunks of at most 15 changed
lines (version lines not counted), and a test file the newer release added or changed has
tests that fail on the older library and pass with only that module new, run with the bench's
own pytest in the recipe's workspace (release_bugs.lay_out), each run under a time-out. Kept
pairs are written to release_bugs.json; why every other pair was dropped is printed, and each
pair's verdict is kept in CACHE/mined.jsonl so a second run only looks at pairs not seen yet.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from bench.effect import release_bugs as rb
from bench.effect.corpus import PYTEST

PACKAGES = (
    "humanize",
    "python-slugify",
    "more-itertools",
    "toolz",
    "boltons",
    "inflect",
    "tabulate",
    "cachetools",
    "semver",
    "parse",
    "jmespath",
    "jsonpointer",
    "pyparsing",
    "text-unidecode",
    "isodate",
    "python-dateutil",
    "pytimeparse",
    "num2words",
    "roman",
    "webcolors",
    "sqlparse",
    "tomlkit",
    "wcwidth",
    "marshmallow",
    "python-box",
    "validators",
    "parsimonious",
    "pathspec",
)
MAX_PAIRS = 15  # the newest patch pairs of a package
MAX_TEST_FILES = 4  # changed test files tried per pair
MAX_IDS = 6  # failing tests kept per recipe: enough to pin the bug, a short check
RUN_TIMEOUT = 180.0
#: Plugins of the bench's venv that no library's tests need, left out while mining to halve
#: each run's start-up (the bench's own check keeps them; its soundness check runs anyway).
UNNEEDED_PLUGINS = ("-p", "no:pytest_lsp", "-p", "no:hypothesispytest")
SUMMARY = re.compile(r"^(FAILED|ERROR) (\S+?)(?: - .*)?$")


@dataclass(frozen=True)
class Verdict:
    package: str
    old: str
    new: str
    kept: bool
    reason: str  # why dropped, or the recipe's module when kept
    recipe: dict[str, Any] | None = None


def versions(package: str) -> list[str]:
    """The package's releases, asked of PyPI once (kept in CACHE/versions.json)."""
    known_file = rb.CACHE / "versions.json"
    known = json.loads(known_file.read_text(encoding="utf-8")) if known_file.is_file() else {}
    if package not in known:
        known[package] = _index_versions(package)
        known_file.write_text(json.dumps(known, indent=1) + "\n", encoding="utf-8")
    return list(known[package])


def _index_versions(package: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", package],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    match = re.search(r"Available versions: (.*)", done.stdout)
    return [v.strip() for v in match.group(1).split(",")] if match else []


def patch_pairs(available: list[str]) -> list[tuple[str, str]]:
    """Consecutive final releases with the same major.minor, newest MAX_PAIRS."""
    parsed = []
    for text in available:
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        if not version.is_prerelease and not version.is_devrelease:
            parsed.append(version)
    parsed.sort()
    pairs = [
        (str(a), str(b)) for a, b in itertools.pairwise(parsed) if a.release[:2] == b.release[:2]
    ]
    return pairs[-MAX_PAIRS:]


def run_pytest(workspace: Path, args: list[str]) -> tuple[int, str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        done = subprocess.run(
            [*PYTEST.split(), *UNNEEDED_PLUGINS, "-rfE", *args],
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return -1, "timed out"
    return done.returncode, done.stdout


def failing(report: str) -> tuple[set[str], bool]:
    """The failing tests' ids without parameters, and whether any test errored."""
    ids, errored = set(), False
    for line in report.splitlines():
        match = SUMMARY.match(line)
        if match:
            errored |= match.group(1) == "ERROR"
            ids.add(match.group(2).split("[", 1)[0])
    return ids, errored


def try_test(
    old: Path, new: Path, modules: tuple[str, ...], test: str
) -> tuple[str, tuple[str, ...], str]:
    """The first of `modules` with which, alone new, tests in `test` that fail on the old
    library pass, and those tests; or a reason."""
    with tempfile.TemporaryDirectory(prefix="rune-mine-") as scratch:
        before = rb.lay_out(old, new, test, Path(scratch) / "old")
        code, report = run_pytest(before, [test])
        if code in (-1, 2, 3, 4, 5):
            return "", (), f"the test file does not run on the old release (exit {code})"
        ids, errored = failing(report)
        ids = {i for i in ids if rb.TEST_ID.match(i)}
        if errored or not ids:
            return "", (), "no test fails on the old release" if not errored else "tests error"
        for module in modules:
            after = Path(scratch) / module.replace("/", "_")
            shutil.copytree(before, after)
            shutil.copyfile(rb.library_files(new)[module], after / module)
            still, _ = failing(run_pytest(after, sorted(ids))[1])
            kept = tuple(sorted(ids - still))[:MAX_IDS]
            if not kept:
                continue
            if run_pytest(before, list(kept))[0] == 1 and run_pytest(after, list(kept))[0] == 0:
                return module, kept, ""
    return "", (), "the failing tests fail with the new module too"


def mine_pair(package: str, old_version: str, new_version: str, cache: Path = rb.CACHE) -> Verdict:
    def dropped(reason: str) -> Verdict:
        return Verdict(package, old_version, new_version, False, reason)

    try:
        old = rb.sdist(package, old_version, cache)
        new = rb.sdist(package, new_version, cache)
    except (rb.RecipeError, OSError) as exc:
        return dropped(f"no sdist: {exc}")
    changed = rb.change(old, new)
    reason = changed.why_not()
    if reason:
        return dropped(reason)
    tests = rb.changed_tests(old, new)
    why = "no test file added or changed"
    for test in tests[:MAX_TEST_FILES]:
        module, ids, why = try_test(old, new, changed.candidates(), test)
        if ids:
            recipe = rb.Recipe(
                package, old_version, new_version, module, test, ids, len(changed.modules)
            )
            return Verdict(package, old_version, new_version, True, module, asdict(recipe))
    return dropped(why)


def main(argv: list[str]) -> int:
    """Mine the packages named (default: PACKAGES); `--recipes-only`: mine nothing, write
    release_bugs.json from the verdicts kept so far (after miners ran side by side)."""
    recipes_only = "--recipes-only" in argv
    packages = [] if recipes_only else [a for a in argv if a != "--recipes-only"] or PACKAGES
    ledger = rb.CACHE / "mined.jsonl"
    ledger.parent.mkdir(parents=True, exist_ok=True)
    seen = {}
    if ledger.is_file():
        for line in ledger.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            seen[(entry["package"], entry["old"], entry["new"])] = Verdict(**entry)
    for package in packages:
        pairs = patch_pairs(versions(package))
        print(f"{package}: {len(pairs)} patch pairs", file=sys.stderr, flush=True)
        for old, new in pairs:
            if (package, old, new) in seen:
                continue
            verdict = mine_pair(package, old, new)
            seen[(package, old, new)] = verdict
            with ledger.open("a", encoding="utf-8") as sink:
                sink.write(json.dumps(asdict(verdict)) + "\n")
            mark = "KEPT" if verdict.kept else "dropped"
            print(f"  {old} -> {new}: {mark} ({verdict.reason})", file=sys.stderr, flush=True)
    kept = [v for v in seen.values() if v.kept and v.recipe and v.package in PACKAGES]
    recipes = [
        rb.recipe_from(v.recipe or {})
        for v in sorted(kept, key=lambda v: (v.package, Version(v.old)))
    ]
    rb.write_recipes(
        rb.RECIPES,
        recipes,
        "Written by bench/effect/mine_release_bugs.py: patch releases on PyPI whose tests pin "
        "a one-module fix. Only names, versions, paths and test ids: no third-party code.",
    )
    reasons = Counter(_bucket(v.reason) for v in seen.values() if not v.kept)
    print(f"{len(recipes)} recipes from {len(seen)} pairs; dropped: {dict(reasons)}")
    return 0


def _bucket(reason: str) -> str:
    return re.sub(r"\d+", "N", reason.split(":", 1)[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
