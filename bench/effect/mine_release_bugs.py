"""Find the recipes of the `release` corpora (bench/effect/release_bugs.py) on PyPI.

    nice -n 19 .venv/bin/python -m bench.effect.mine_release_bugs            # every package
    nice -n 19 .venv/bin/python -m bench.effect.mine_release_bugs humanize parse
    nice -n 19 .venv/bin/python -m bench.effect.mine_release_bugs --all-pairs   # not 15 each
    .venv/bin/python -m bench.effect.mine_release_bugs --recipes-only   # from the verdicts

For each hand-picked package (PACKAGES: small, pure Python, tests shipped in the sdist): its
releases from PyPI's JSON API, then each pair of consecutive releases of the same major.minor
(a patch release and the one before it; the newest MAX_PAIRS pairs, or all), newest first,
both sdists downloaded into release_bugs.CACHE (bench/effect/pypi_sdists.py). For a test file
the newer release added or changed, the tests that fail on the older library (run with the
bench's own pytest in the recipe's workspace, release_bugs.lay_out, each run under a
time-out) must pass with only the fix applied, and then fail and pass alone both ways:

- the strict rule: the release changed at most 6 modules, one of them by one or two hunks of
  at most 15 changed lines (version lines not counted), and the fix is that module whole;
- else one hunk: the tests pass with the whole newer library, and with only one hunk of at
  most 15 changed lines of one changed module applied to the older module (each tried alone,
  at most MAX_HUNK_TRIES per test file; release_changes.Change.single_hunks).

Kept pairs are written to release_bugs.json; why every other pair was dropped is printed, and
each pair's verdict is kept in CACHE/mined.jsonl so a second run only looks at pairs not seen
yet.
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
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from bench.effect import pypi_sdists
from bench.effect import release_bugs as rb
from bench.effect import release_changes as changes
from bench.effect.corpus import PYTEST
from bench.effect.release_changes import Change
from bench.effect.release_packages import PACKAGES

MAX_PAIRS = 15  # the newest patch pairs of a package
MAX_TEST_FILES = 4  # changed test files tried per pair
MAX_HUNK_TRIES = 24  # single hunks tried per test file
MAX_IDS = 6  # failing tests kept per recipe: enough to pin the bug, a short check
RUN_TIMEOUT = 180.0
#: Plugins of the bench's venv that no library's tests need, left out while mining to cut
#: each run's start-up from 1.3 to 0.45 s of CPU (pytest blocks a plugin by its entry point's
#: name: `pytest-lsp`, whose lsprotocol import was most of it). The bench's own check keeps
#: them; its soundness check runs anyway.
UNNEEDED_PLUGINS = ("-p", "no:pytest-lsp", "-p", "no:hypothesispytest", "-p", "no:anyio")
_COPIES = itertools.count()
SUMMARY = re.compile(r"^(FAILED|ERROR) (\S+?)(?: - .*)?$")


@dataclass(frozen=True)
class Verdict:
    package: str
    old: str
    new: str
    kept: bool
    reason: str  # why dropped, or the recipe's module when kept
    recipe: dict[str, Any] | None = None


def versions(package: str, cache: Path = pypi_sdists.CACHE) -> list[str]:
    """The package's releases with an sdist, asked of PyPI's JSON API once per cache."""
    return list(pypi_sdists.releases(package, cache))


def patch_pairs(available: list[str], most: int | None = MAX_PAIRS) -> list[tuple[str, str]]:
    """Consecutive final releases with the same major.minor, the newest `most` (None: all),
    spelled as PyPI lists them (Unidecode's 0.04.20 is no 0.4.20 there)."""
    parsed = []
    for text in available:
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        if not version.is_prerelease and not version.is_devrelease:
            parsed.append((version, text))
    parsed.sort()
    pairs = [
        (a, b)
        for (va, a), (vb, b) in itertools.pairwise(parsed)
        if va.release[:2] == vb.release[:2]
    ]
    return pairs if most is None else pairs[max(0, len(pairs) - most) :] if most else []


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


@dataclass(frozen=True)
class Found:
    """The fix a test file pins: a module, whole or one hunk of it, and the tests."""

    module: str
    hunk: int | None
    test_ids: tuple[str, ...]


def try_test(old: Path, new: Path, changed: Change, test: str) -> Found | str:
    """What fixes the tests of `test` that fail on the old library: first a module of
    `changed.candidates()` taken whole from the new release, else one small hunk of a changed
    module applied alone to the old one; or why nothing does."""
    with tempfile.TemporaryDirectory(prefix="rune-mine-") as scratch:
        before = rb.lay_out(old, new, test, Path(scratch) / "old")
        code, report = run_pytest(before, [test])
        if code in (-1, 2, 3, 4, 5):
            return f"the test file does not run on the old release (exit {code})"
        ids, errored = failing(report)
        ids = {i for i in ids if rb.TEST_ID.match(i)}
        if errored or not ids:
            return "no test fails on the old release" if not errored else "tests error"
        newer = rb.library_files(new)
        for module in changed.candidates():
            fixed = _confirmed(before, {module: newer[module].read_text("utf-8", "replace")}, ids)
            if fixed:
                return Found(module, None, fixed)
        tries = changed.single_hunks()[:MAX_HUNK_TRIES]
        if not tries:
            return (
                "the failing tests fail with the new module too"
                if changed.candidates()
                else ("no small hunk to try alone")
            )
        whole = {name: path.read_text("utf-8", "replace") for name, path in newer.items()}
        ids -= failing(_run_with(before, whole, sorted(ids))[1])[0]
        if not ids:
            return "the failing tests fail with the whole new library too"
        older = rb.library_files(old)
        for module, hunk in tries:
            text = changes.apply_hunk(
                older[module].read_text("utf-8", "replace"), whole.get(module, ""), hunk
            )
            fixed = _confirmed(before, {module: text}, ids)
            if fixed:
                return Found(module, hunk, fixed)
    return "no single hunk fixes the failing tests"


def _run_with(before: Path, texts: dict[str, str], args: list[str]) -> tuple[int, str]:
    """Pytest in a copy of the workspace `before` with `texts` written over its files."""
    after = before.with_name(f"{before.name}-{next(_COPIES)}")
    shutil.copytree(before, after)
    try:
        for name, text in texts.items():
            (after / name).parent.mkdir(parents=True, exist_ok=True)
            (after / name).write_text(text, encoding="utf-8")
        return run_pytest(after, args)
    finally:
        shutil.rmtree(after, ignore_errors=True)


def _confirmed(before: Path, texts: dict[str, str], ids: set[str]) -> tuple[str, ...]:
    """The tests of `ids` that pass with `texts` over the old library, at most MAX_IDS,
    confirmed alone both ways (failing before, passing after); or none."""
    still, _ = failing(_run_with(before, texts, sorted(ids))[1])
    kept = tuple(sorted(ids - still))[:MAX_IDS]
    if not kept:
        return ()
    if run_pytest(before, list(kept))[0] == 1 and _run_with(before, texts, list(kept))[0] == 0:
        return kept
    return ()


def mine_pair(
    package: str, old_version: str, new_version: str, cache: Path = pypi_sdists.CACHE
) -> Verdict:
    def dropped(reason: str) -> Verdict:
        return Verdict(package, old_version, new_version, False, reason)

    try:
        old = pypi_sdists.sdist(package, old_version, cache)
        new = pypi_sdists.sdist(package, new_version, cache)
    except (pypi_sdists.SdistError, OSError) as exc:
        return dropped(f"no sdist: {exc}")
    changed = rb.change(old, new)
    reason = changed.why_not()
    if reason and not changed.single_hunks():
        return dropped(reason)
    tests = rb.changed_tests(old, new)
    why = "no test file added or changed"
    for test in tests[:MAX_TEST_FILES]:
        found = try_test(old, new, changed, test)
        if isinstance(found, str):
            why = found
            continue
        (module,) = [m for m in changed.modules if m.module == found.module]
        recipe = rb.Recipe(
            package,
            old_version,
            new_version,
            found.module,
            test,
            found.test_ids,
            len(changed.modules),
            found.hunk,
            module.hunks,
        )
        what = found.module if found.hunk is None else f"{found.module} hunk {found.hunk}"
        return Verdict(package, old_version, new_version, True, what, asdict(recipe))
    return dropped(why)


def main(argv: list[str]) -> int:
    """Mine the packages named (default: PACKAGES); `--all-pairs`: every patch pair of each
    rather than the newest MAX_PAIRS; `--recipes-only`: mine nothing, write release_bugs.json
    from the verdicts kept so far (after miners ran side by side)."""
    started = time.monotonic()
    flags = {"--recipes-only", "--all-pairs"}
    named = [a for a in argv if a not in flags]
    packages = [] if "--recipes-only" in argv else named or list(PACKAGES)
    most = None if "--all-pairs" in argv else MAX_PAIRS
    ledger = pypi_sdists.CACHE / "mined.jsonl"
    ledger.parent.mkdir(parents=True, exist_ok=True)
    seen = {}
    if ledger.is_file():
        for line in ledger.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            seen[(entry["package"], entry["old"], entry["new"])] = Verdict(**entry)
    for package in packages:
        try:
            pairs = patch_pairs(versions(package), most)
        except pypi_sdists.SdistError as exc:
            print(f"{package}: {exc}", file=sys.stderr, flush=True)
            continue
        print(f"{package}: {len(pairs)} patch pairs", file=sys.stderr, flush=True)
        for old, new in reversed(pairs):  # the newest first: the likeliest to have tests
            if (package, old, new) in seen:
                continue
            try:
                verdict = mine_pair(package, old, new)
            except Exception as exc:  # one odd sdist must not end a run of hours
                verdict = Verdict(package, old, new, False, f"error: {type(exc).__name__}: {exc}")
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
        "a fix of one module, whole or one hunk of it. Only names, versions, paths, hunk "
        "numbers and test ids: no third-party code.",
    )
    reasons = Counter(_bucket(v.reason) for v in seen.values() if not v.kept)
    strict = sum(r.strict for r in recipes)
    isolated = sum(r.hunk is not None for r in recipes)
    mined = len({v.package for v in seen.values()})
    print(
        f"{len(recipes)} recipes ({strict} strict, {isolated} one hunk) from {len(seen)} pairs "
        f"of {mined} packages in {time.monotonic() - started:.0f} s; dropped: {dict(reasons)}"
    )
    return 0


def _bucket(reason: str) -> str:
    return re.sub(r"\d+", "N", reason.split(":", 1)[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
