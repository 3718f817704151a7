"""How long compute_hunks takes on a 100,000-line file, next to difflib.unified_diff.

Run: .venv/bin/python bench/bench_hunks.py   (prints milliseconds; asserts nothing)
"""

from __future__ import annotations

import difflib
import random
import time
from collections.abc import Callable

from rune_lsp.review.hunks import apply_hunks, compute_hunks

LINES = 100_000
REPEATS = 5


def sample_file() -> list[str]:
    # Code-like lines, with blank lines and closing braces repeated as in real files.
    lines: list[str] = []
    for i in range(LINES):
        if i % 10 == 9:
            lines.append("\n")
        elif i % 10 == 8:
            lines.append("    }\n")
        else:
            lines.append(f"    value_{i} = compute({i}, factor={i % 7})\n")
    return lines


def one_change(lines: list[str]) -> list[str]:
    changed = list(lines)
    changed[LINES // 2] = "    value = changed()\n"
    return changed


def scattered_changes(lines: list[str], count: int = 1_000) -> list[str]:
    rng = random.Random(7)
    changed = list(lines)
    for k in rng.sample(range(LINES), count):
        changed[k] = f"    edited_{k} = 0\n"
    return changed


def best_ms(action: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best * 1000


def report(name: str, old_lines: list[str], new_lines: list[str]) -> None:
    old, new = "".join(old_lines), "".join(new_lines)
    hunks = compute_hunks(old, new)
    assert_ok = apply_hunks(old, hunks) == new
    ours = best_ms(lambda: compute_hunks(old, new))
    started = time.perf_counter()
    list(difflib.unified_diff(old_lines, new_lines))
    theirs = (time.perf_counter() - started) * 1000
    print(
        f"{name:<28} compute_hunks {ours:8.1f} ms  ({len(hunks)} hunks, round-trip "
        f"{'ok' if assert_ok else 'WRONG'})   difflib.unified_diff {theirs:9.1f} ms"
    )


def main() -> None:
    base = sample_file()
    report("1 changed line", base, one_change(base))
    report("1,000 scattered changes", base, scattered_changes(base))


if __name__ == "__main__":
    main()
