"""The `release` corpora (bench/effect/release_bugs.py) and their miner
(bench/effect/mine_release_bugs.py) on two releases of a made-up package (fake_release.py):
what counts as a small fix, what the workspace holds, that the built tasks are sound, and
that the miner finds the test that pins the fix. No network: the sdists sit in the cache."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from bench.effect import mine_release_bugs as mine
from bench.effect import pypi_sdists
from bench.effect import release_bugs as rb
from bench.effect import release_changes as changes
from bench.effect.bench import choose_tasks
from bench.effect.corpus import check_task, is_fixed, load_corpus, make_workspace
from tests.effect_bench import fake_release as fake

RECIPE = rb.Recipe(
    fake.PACKAGE, fake.OLD, fake.NEW, fake.MODULE, fake.TEST, (f"{fake.TEST}::test_count_even",)
)


@pytest.fixture
def releases(tmp_path: Path) -> tuple[Path, Path]:
    return (
        fake.write_release(tmp_path / "old", fake.OLD),
        fake.write_release(tmp_path / "new", fake.NEW),
    )


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    fake.cache_sdists(tmp_path / "cache", tmp_path / "archived")
    return tmp_path / "cache"


def test_the_fix_is_one_hunk_in_one_module_and_the_version_bump_does_not_count(
    releases: tuple[Path, Path],
) -> None:
    changed = rb.change(*releases)
    assert changed == changes.Change(
        (changes.ModuleChange(fake.MODULE, hunks=1, lines=2, small_hunks=(0,)),)
    )
    assert changed.why_not() is None and changed.candidates() == (fake.MODULE,)


def test_larger_changes_are_dropped_with_their_reason() -> None:
    small, large = changes.ModuleChange("a.py", 2, 4), changes.ModuleChange("b.py", 3, 6)
    assert changes.Change((large,)).why_not() == "3 hunks"
    assert changes.Change((changes.ModuleChange("a.py", 1, 16),)).why_not() == "16 lines changed"
    assert changes.Change(()).why_not() == "0 modules changed"
    assert changes.Change((large, large)).why_not() == "no small change among 2 modules"
    assert changes.Change((small,) * 7).why_not() == "7 modules changed"
    # A release that also changed other modules: the small change is a candidate, which the
    # miner keeps only if the failing tests pass with it alone.
    assert changes.Change((large, small)).candidates() == ("a.py",)
    assert changes.Change((small,) * 7).candidates() == ()
    old = "def f():\n    return 1\n\n\ndef g():\n    return 2\n\n\ndef h():\n    return 3\n"
    new = old.replace("1", "10").replace("2", "20").replace("3", "30")
    assert changes.code_hunks(old, new) == (3, 6)
    assert changes.code_hunks('__version__ = "1"\n', '__version__ = "2"\n') == (0, 0)


def test_the_library_is_its_packages_without_their_tests_and_a_src_layout_is_flattened(
    tmp_path: Path,
) -> None:
    for src in (False, True):
        top = fake.write_release(tmp_path / str(src), fake.OLD, src=src)
        assert sorted(rb.library_files(top)) == ["tally/__init__.py", "tally/core.py"]
        assert sorted(rb.test_files(top)) == [
            "tally/tests/test_inside.py",
            "tests/test_tally.py",
            "tests/test_unrelated.py",
        ]


def test_the_changed_test_file_is_found(releases: tuple[Path, Path]) -> None:
    assert rb.changed_tests(*releases) == [fake.TEST]


def test_the_workspace_holds_the_old_library_and_only_the_new_test_file_and_its_helpers(
    releases: tuple[Path, Path], tmp_path: Path
) -> None:
    old, new = releases
    workspace = rb.lay_out(old, new, fake.TEST, tmp_path / "ws")
    files = sorted(p.relative_to(workspace).as_posix() for p in workspace.rglob("*") if p.is_file())
    assert files == [
        "tally-1.0.0.dist-info/METADATA",
        "tally/__init__.py",
        "tally/core.py",
        "tests/__init__.py",
        "tests/data.py",
        "tests/test_tally.py",
    ]
    assert (workspace / fake.MODULE).read_text() == (old / fake.MODULE).read_text()
    assert (workspace / fake.TEST).read_text() == fake.NEW_TEST
    assert '__version__ = "1.0.0"' in (workspace / "tally/__init__.py").read_text()


def test_built_tasks_of_both_kinds_are_sound_and_pointed_where_they_should_be(
    cache: Path, tmp_path: Path
) -> None:
    targets = {"release": fake.MODULE, "release_multi": fake.TEST}
    for kind, target in targets.items():
        built = rb.build(tmp_path / kind, kind, [RECIPE], cache)
        assert built.tasks == ("01_tally_1.0.0_1.0.1",) and built.skipped == {}
        (task,) = load_corpus(kind, built.root)
        assert (task.kind, task.program, task.test, task.target) == (
            kind,
            fake.MODULE,
            fake.TEST,
            target,
        )
        assert task.test_ids == RECIPE.test_ids
        assert task.test_command.endswith(f" -p no:asyncio {RECIPE.test_ids[0]}")
        expected = None if kind == "release" else f"The test {fake.TEST} fails. Fix the bug."
        assert task.instruction == expected
        assert choose_tasks(None, corpus=kind, built=built.root) == [task]
    assert check_task(task).sound
    workspace = make_workspace(task, tmp_path / "agent")
    assert (workspace / ".git").is_dir() and not is_fixed(task, workspace)
    (workspace / fake.MODULE).write_text(task.source("reference.py"), encoding="utf-8")
    assert is_fixed(task, workspace)


def test_a_recipe_whose_fix_does_not_hold_is_unsound(cache: Path, tmp_path: Path) -> None:
    passing = rb.Recipe(**{**RECIPE.__dict__, "test_ids": (f"{fake.TEST}::test_count_long",)})
    built = rb.build(tmp_path / "built", "release", [passing], cache)
    (task,) = load_corpus("release", built.root)
    assert not check_task(task).fails_before and check_task(task).passes_after


def test_a_recipe_without_its_sdist_is_skipped_with_the_reason(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def offline(package: str, version: str, destination: Path, cache: Path) -> None:
        raise pypi_sdists.SdistError(f"download of {package}=={version}: no network here")

    monkeypatch.setattr(pypi_sdists, "download", offline)
    missing = rb.Recipe(**{**RECIPE.__dict__, "new": "1.0.2"})
    built = rb.build(tmp_path / "built", "release", [missing, RECIPE], cache)
    assert built.tasks == ("01_tally_1.0.0_1.0.1",)
    assert built.skipped == {"tally_1.0.0_1.0.2": "download of tally==1.0.2: no network here"}


def test_an_archive_reaching_outside_its_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "payload.txt").write_text("x")
    archive = tmp_path / "evil-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as packed:
        packed.add(tmp_path / "payload.txt", arcname="../escaped.txt")
    with pytest.raises(tarfile.TarError):
        pypi_sdists.unpack(archive, tmp_path / "out")
    assert not (tmp_path / "escaped.txt").exists()


def test_recipes_round_trip_and_bad_test_ids_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "recipes.json"
    rb.write_recipes(path, [RECIPE], "made in a test")
    assert rb.load_recipes(path) == (RECIPE,)
    bad = {**RECIPE.__dict__, "test_ids": [f"{fake.TEST}::test_count_even[1; rm -rf ~]"]}
    path.write_text(json.dumps({"note": "", "recipes": [bad]}))
    with pytest.raises(rb.RecipeError, match=r"are not ids in tests/test_tally\.py"):
        rb.load_recipes(path)


def test_the_committed_recipes_load() -> None:
    recipes = rb.load_recipes()
    assert recipes and len({r.name for r in recipes}) == len(recipes)


def test_the_miner_finds_the_test_that_pins_the_fix(cache: Path) -> None:
    verdict = mine.mine_pair(fake.PACKAGE, fake.OLD, fake.NEW, cache)
    expected = {**RECIPE.__dict__, "test_ids": RECIPE.test_ids, "module_hunks": 1}
    assert verdict.kept and verdict.recipe == expected


def test_the_miner_pairs_patch_releases_and_reads_pytests_summary() -> None:
    available = ["2.0.0", "1.1.0", "1.0.1", "1.0.0", "1.0.2rc1", "0.9", "2.0.1"]
    assert mine.patch_pairs(available) == [("1.0.0", "1.0.1"), ("2.0.0", "2.0.1")]
    report = (
        "FAILED tests/test_a.py::test_x[1-2] - AssertionError: no\n"
        "FAILED tests/test_a.py::TestY::test_z\n"
        "1 failed, 3 passed\n"
    )
    assert mine.failing(report) == (
        {"tests/test_a.py::test_x", "tests/test_a.py::TestY::test_z"},
        False,
    )
    assert mine.failing("ERROR tests/test_a.py::test_x - fixture 'db' not found\n")[1]
