"""The `release` corpora (bench/effect/release_bugs.py) and their miner
(bench/effect/mine_release_bugs.py) on two releases of a made-up package (fake_release.py):
what counts as a small fix, what the workspace holds, that the built tasks are sound, and
that the miner finds the test that pins the fix. No network: the sdists sit in the cache."""

from __future__ import annotations

import hashlib
import json
import tarfile
from pathlib import Path

import httpx
import pytest

from bench.effect import mine_release_bugs as mine
from bench.effect import pypi_sdists
from bench.effect import release_bugs as rb
from bench.effect import release_changes as changes
from bench.effect.bench import choose_tasks
from bench.effect.check_release_bugs import check_recipes
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
    missing = rb.Recipe(**{**RECIPE.__dict__, "new": "1.0.3"})
    built = rb.build(tmp_path / "built", "release", [missing, RECIPE], cache)
    assert built.tasks == ("01_tally_1.0.0_1.0.1",)
    assert built.skipped == {"tally_1.0.0_1.0.3": "download of tally==1.0.3: no network here"}


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


def test_a_fix_among_other_hunks_of_its_module_is_found_as_that_one_hunk(cache: Path) -> None:
    old = pypi_sdists.sdist(fake.PACKAGE, fake.OLD, cache)
    noisy = pypi_sdists.sdist(fake.PACKAGE, fake.NOISY, cache)
    changed = rb.change(old, noisy)
    assert changed.why_not() == "3 hunks" and changed.candidates() == ()
    assert changed.single_hunks() == ((fake.MODULE, 0), (fake.MODULE, 1), (fake.MODULE, 2))
    verdict = mine.mine_pair(fake.PACKAGE, fake.OLD, fake.NOISY, cache)
    assert verdict.kept and verdict.reason == f"{fake.MODULE} hunk 1"
    assert verdict.recipe is not None
    recipe = rb.recipe_from(verdict.recipe)
    assert (recipe.hunk, recipe.module_hunks, recipe.modules_changed) == (1, 3, 1)
    assert not recipe.strict and RECIPE.strict


def test_a_one_hunk_task_is_the_old_module_with_that_hunk_and_is_sound(
    cache: Path, tmp_path: Path
) -> None:
    recipe = rb.Recipe(**{**RECIPE.__dict__, "new": fake.NOISY, "hunk": 1, "module_hunks": 3})
    built = rb.build(tmp_path / "built", "release", [recipe], cache)
    (task,) = load_corpus("release", built.root)
    fixed = task.source("reference.py")
    assert fixed == fake.CORE.format(rest=0, head="", tail="")  # no SEPARATOR, no count_odd
    assert check_task(task).sound
    wrong = rb.Recipe(**{**recipe.__dict__, "hunk": 3})
    built = rb.build(tmp_path / "wrong", "release", [wrong], cache)
    assert built.tasks == () and "has 3 hunks, not one numbered 3" in built.skipped[wrong.name]


def test_hunks_are_numbered_in_diff_order_and_each_applies_alone() -> None:
    old = 'A = 1\n__version__ = "1"\nX = 0\nB = 2\nC = 3\nD = 4'
    new = 'A = 1\n__version__ = "2"\nX = 0\nB = 20\nC = 3\nE = 5\nD = 4\nF = 6'
    found = changes.hunks(old, new)
    assert [(h.index, h.version_only, h.lines, h.small) for h in found] == [
        (0, True, 2, False),
        (1, False, 2, True),
        (2, False, 1, True),
        (3, False, 1, True),
    ]
    assert changes.code_hunks(old, new) == (3, 4)
    assert changes.apply_hunk(old, new, 1) == old.replace("B = 2", "B = 20")
    assert changes.apply_hunk(old, new, 2) == old.replace("C = 3\n", "C = 3\nE = 5\n")
    assert changes.apply_hunk(old, new, 3) == old + "\nF = 6"  # after a last line without \n
    assert changes.apply_hunk("a\nb\nc\n", "a\nc\n", 0) == "a\nc\n"
    with pytest.raises(IndexError):
        changes.apply_hunk(old, new, 4)
    # Only a module the older release has can take a hunk alone; a long hunk is no fix.
    long = "".join(f"x{i} = {i}\n" for i in range(16))
    change = changes.change({"a.py": "x = 1\n"}, {"a.py": "x = 2\n" + long, "b.py": "y = 1\n"})
    assert change.single_hunks() == ()
    assert changes.change({"a.py": "x = 1\n"}, {"a.py": "x = 2\n"}).single_hunks() == (("a.py", 0),)


def test_the_sdist_comes_from_pypis_json_api_and_a_wrong_digest_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    top = fake.write_release(tmp_path / "release", fake.OLD)
    archive = tmp_path / "tally-1.0.0.tar.gz"
    with tarfile.open(archive, "w:gz") as packed:
        packed.add(top, arcname=top.name)
    content = archive.read_bytes()
    digest = {"good": hashlib.sha256(content).hexdigest()}
    asked: list[str] = []

    def get(url: str, **_: object) -> httpx.Response:
        asked.append(url)
        request = httpx.Request("GET", url)
        if url.endswith("/json"):
            upload = {
                "packagetype": "sdist",
                "filename": archive.name,
                "url": "../../packages/ab/tally-1.0.0.tar.gz",
                "digests": {"sha256": digest["good"]},
            }
            wheel = {**upload, "packagetype": "bdist_wheel", "filename": "tally.whl"}
            releases = {fake.OLD: [wheel, upload], "1.0.1": [wheel]}
            return httpx.Response(200, json={"releases": releases}, request=request)
        return httpx.Response(200, content=content, request=request)

    monkeypatch.setattr(httpx, "get", get)
    cache = tmp_path / "cache"
    assert mine.versions(fake.PACKAGE, cache) == [fake.OLD]  # 1.0.1 has no sdist
    assert (pypi_sdists.sdist(fake.PACKAGE, fake.OLD, cache) / "tally" / "core.py").is_file()
    assert asked == [
        "https://pypi.org/pypi/tally/json",
        "https://pypi.org/packages/ab/tally-1.0.0.tar.gz",
    ]
    index = json.loads((cache / "index" / "tally.json").read_text())
    digest["good"] = "0" * 64  # a second cache: the index is asked again, the file differs
    with pytest.raises(pypi_sdists.SdistError, match="the sha256 digest is not PyPI's"):
        pypi_sdists.sdist(fake.PACKAGE, fake.OLD, tmp_path / "other")
    assert index[fake.OLD]["sha256"] == hashlib.sha256(content).hexdigest()
    assert not (tmp_path / "other" / "sdists" / "tally-1.0.0").exists()


def test_a_package_with_few_patch_pairs_keeps_them_all() -> None:
    available = ["1.0.0", "1.0.1", "1.0.2", "1.1.0", "1.1.1"]
    assert mine.patch_pairs(available, 15) == [
        ("1.0.0", "1.0.1"),
        ("1.0.1", "1.0.2"),
        ("1.1.0", "1.1.1"),
    ]
    assert mine.patch_pairs(available, 1) == [("1.1.0", "1.1.1")]
    assert len(mine.patch_pairs(available, None)) == 3
    assert mine.patch_pairs(["0.04.19", "0.04.20"]) == [("0.04.19", "0.04.20")]


def test_the_check_without_a_model_reports_an_unsound_recipe(cache: Path, tmp_path: Path) -> None:
    passing = rb.Recipe(**{**RECIPE.__dict__, "old": fake.NEW, "new": fake.NOISY})
    checked = check_recipes((RECIPE, passing), tmp_path, cache)
    assert [c.problem for c in checked] == [
        None,
        "unsound: fails before False, passes after True",
    ]
