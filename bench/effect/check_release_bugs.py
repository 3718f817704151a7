"""Build every recipe of release_bugs.json and check it with the bench's own soundness check
(corpus.check_task: the test ids fail on the older release and pass with the reference),
without a model:

    nice -n 19 .venv/bin/python -m bench.effect.check_release_bugs          # report
    nice -n 19 .venv/bin/python -m bench.effect.check_release_bugs --drop   # and drop the rest

Both kinds are built; the `release` task is checked, since the `release_multi` task of a
recipe has the same workspace, reference and test ids (only task.json's target and message
differ), which is checked too. A recipe that does not build or is unsound is reported; `--drop`
writes release_bugs.json without it (what the miner's pytest found can differ from the
bench's check: the check loads every pytest plugin of the venv, the miner leaves some out).
Each verdict is kept in CACHE/checked.jsonl, so a second run checks only new recipes.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.effect import release_bugs as rb
from bench.effect.corpus import check_task, load_corpus, run_test
from bench.effect.pypi_sdists import CACHE

#: The check's run of the reference timed out (corpus.TEST_TIMEOUT): on a loaded machine no
#: verdict on the recipe, which is not kept in the ledger, so the next run checks it again.
TIMED_OUT = "the reference's run timed out"


@dataclass(frozen=True)
class Checked:
    recipe: rb.Recipe
    problem: str | None  # None: both kinds build, and the task is sound


def check_recipes(recipes: tuple[rb.Recipe, ...], root: Path, cache: Path = CACHE) -> list[Checked]:
    """Each recipe with why it is no task (None: both kinds build and are sound)."""
    problems: dict[str, str] = {}
    tasks = {}
    for kind in rb.KINDS:
        built = rb.build(root / kind, kind, recipes, cache)
        for name, reason in built.skipped.items():
            problems.setdefault(name, f"{kind} not built: {reason}")
        tasks[kind] = {t.name.split("_", 1)[1]: t for t in load_corpus(kind, built.root)}
    for name, task in tasks["release"].items():
        multi = tasks["release_multi"].get(name)
        if multi is None or multi.test_command != task.test_command:
            problems.setdefault(name, "release_multi differs from release")
            continue
        checked = check_task(task)
        if not checked.sound:
            how = f"fails before {checked.fails_before}, passes after {checked.passes_after}"
            if run_test(task, task.source("reference.py")).timed_out:
                how = TIMED_OUT
            problems.setdefault(name, f"unsound: {how}")
        print(f"{task.name}: {'sound' if checked.sound else 'UNSOUND'}", flush=True)
    return [Checked(r, problems.get(r.name)) for r in recipes]


def main(argv: list[str]) -> int:
    recipes = rb.load_recipes()
    ledger = CACHE / "checked.jsonl"
    known: dict[str, str | None] = {}
    if ledger.is_file():
        for line in ledger.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            known[json.dumps(entry["recipe"], sort_keys=True)] = entry["problem"]

    def key(recipe: rb.Recipe) -> str:
        return json.dumps({**asdict(recipe), "test_ids": list(recipe.test_ids)}, sort_keys=True)

    fresh = tuple(r for r in recipes if key(r) not in known)
    with tempfile.TemporaryDirectory(prefix="rune-release-check-") as scratch:
        for recipe in fresh:  # one at a time: an interrupted run keeps what it checked
            (checked,) = check_recipes((recipe,), Path(scratch) / recipe.name)
            known[key(checked.recipe)] = checked.problem
            if TIMED_OUT in (checked.problem or ""):
                continue
            with ledger.open("a", encoding="utf-8") as sink:
                entry = {"recipe": json.loads(key(checked.recipe)), "problem": checked.problem}
                sink.write(json.dumps(entry) + "\n")
    bad = [(r, known[key(r)]) for r in recipes if known[key(r)]]
    for recipe, problem in bad:
        print(f"{recipe.name}: {problem}")
    print(f"{len(recipes) - len(bad)} of {len(recipes)} recipes sound ({len(fresh)} checked now)")
    if bad and "--drop" in argv:
        note = json.loads(rb.RECIPES.read_text(encoding="utf-8"))["note"]
        rb.write_recipes(rb.RECIPES, [r for r in recipes if not known[key(r)]], note)
        print(f"dropped {len(bad)} from {rb.RECIPES.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
