"""Does the first request of a run on a failing test show the module with the bug? (issue 26)

    .venv/bin/python -m bench.effect.reach

For each task of the `multi` corpus (bench/effect/corpus_multi/), without a model: the task
rune composes on the task's target (the failing test), blind and once the first check ran,
whether it shows the buggy module, how many characters it has against the test alone, and the
check rune would offer. Nothing here asserts: the numbers are the result.
"""

from __future__ import annotations

import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.effect.corpus import Task, failing_output, load_corpus, make_workspace
from rune_lsp.loop.task import FixTarget
from rune_lsp.runner.assembly import compose_task, with_check_output, workspace_tools
from rune_lsp.runner.offered_check import offered_check
from rune_lsp.settings import Settings
from rune_lsp.tools.documents import DiskDocuments


@dataclass(frozen=True)
class Reach:
    task: str
    test_only_chars: int  # the task as skel composed it: the test file alone
    blind_chars: int
    checked_chars: int  # recomposed with the failing check's traceback (its report not counted)
    shown_blind: bool  # the buggy module is among the files shown
    shown_checked: bool
    offered: str | None


def reach(task: Task) -> Reach:
    with tempfile.TemporaryDirectory(prefix="rune-reach-") as scratch:
        root = make_workspace(task, Path(scratch) / "ws")
        document = root / task.target
        tools = workspace_tools(Settings(), document, [root], DiskDocuments())
        fix = compose_task(tools, FixTarget(path=document, instruction=task.instruction))
        checked = with_check_output(tools, document, fix, failing_output(task))
        offer = offered_check(Settings(), root, document)
        return Reach(
            task=task.name,
            test_only_chars=len(fix.model_copy(update={"related": ()}).prompt()),
            blind_chars=len(fix.prompt()),
            checked_chars=len(checked),
            shown_blind=any(r.path == task.program for r in fix.related),
            shown_checked=f"Other file: {task.program} " in checked,
            offered=offer.command if offer is not None else None,
        )


def main() -> None:
    rows = [reach(task) for task in load_corpus("multi")]
    for row in rows:
        print(
            f"{row.task}: module shown blind {row.shown_blind}, with check {row.shown_checked}; "
            f"{row.test_only_chars} -> {row.blind_chars} / {row.checked_chars} chars; "
            f"offered: {row.offered}"
        )
    print(
        f"module shown: blind {sum(r.shown_blind for r in rows)}/{len(rows)}, "
        f"with check {sum(r.shown_checked for r in rows)}/{len(rows)}; median chars: test "
        f"only {statistics.median(r.test_only_chars for r in rows)}, blind "
        f"{statistics.median(r.blind_chars for r in rows)}, with check "
        f"{statistics.median(r.checked_chars for r in rows)}; offered "
        f"{sum(r.offered is not None for r in rows)}/{len(rows)}"
    )


if __name__ == "__main__":
    main()
