"""Build every recipe of release_bugs.json and check it with the bench's own soundness check
(corpus.check_task: the test ids fail on the older release and pass with the reference), for
both kinds, without a model:

    nice -n 19 .venv/bin/python -m bench.effect.check_release_bugs          # report
    nice -n 19 .venv/bin/python -m bench.effect.check_release_bugs --drop   # and drop the rest

A recipe that does not build or is unsound in either kind is reported; `--drop` writes
release_bugs.json without it (what the miner's pytest found can differ from the bench's
check: the check loads every pytest plugin of the venv, the miner leaves some out).
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.effect import release_bugs as rb
from bench.effect.corpus import check_task, load_corpus
from bench.effect.pypi_sdists import CACHE


@dataclass(frozen=True)
class Checked:
    recipe: rb.Recipe
    problem: str | None  # None: both kinds build and are sound


def check_recipes(recipes: tuple[rb.Recipe, ...], root: Path, cache: Path = CACHE) -> list[Checked]:
    """Each recipe with why it is no task (None: both kinds build and are sound)."""
    problems: dict[str, str] = {}
    for kind in rb.KINDS:
        built = rb.build(root / kind, kind, recipes, cache)
        for name, reason in built.skipped.items():
            problems.setdefault(name, f"{kind} not built: {reason}")
        for task in load_corpus(kind, built.root):
            checked = check_task(task)
            if not checked.sound:
                name = task.name.split("_", 1)[1]
                how = f"fails before {checked.fails_before}, passes after {checked.passes_after}"
                problems.setdefault(name, f"{kind} unsound: {how}")
            print(f"{kind} {task.name}: {'sound' if checked.sound else 'UNSOUND'}", flush=True)
    return [Checked(r, problems.get(r.name)) for r in recipes]


def main(argv: list[str]) -> int:
    recipes = rb.load_recipes()
    with tempfile.TemporaryDirectory(prefix="rune-release-check-") as scratch:
        checked = check_recipes(recipes, Path(scratch))
    bad = [c for c in checked if c.problem]
    for c in bad:
        print(f"{c.recipe.name}: {c.problem}")
    print(f"{len(checked) - len(bad)} of {len(checked)} recipes sound in both kinds")
    if bad and "--drop" in argv:
        note = json.loads(rb.RECIPES.read_text(encoding="utf-8"))["note"]
        rb.write_recipes(rb.RECIPES, [c.recipe for c in checked if not c.problem], note)
        print(f"dropped {len(bad)} from {rb.RECIPES.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
