"""Target 7: reading a model's answer for code blocks is linear in its size (issue 24).

`read_code` (fences, placement, the edit) on: a 400-line answer that copied the excerpt's line
numbers (the tier that took 206 s in process before), a 400-line answer holding a whole
40-function file, a 1 MB answer on one line (prose, and a fence opening followed by spaces: the
line the old opening regex backtracked on for 8.3 s at 30 KB), a block line of 20,000 `#`
(the placeholder pattern's old worst case, 13 s), a block of a file of alike lines (1.3 s
before), the fixed function then the whole file (on a file of alike functions too: 20 s
before its alignment was budgeted), a whole file of alike lines with one changed (its edit
widened one line at a time took 6 s), a whole file over one whose lines end in
spaces, and answers of thousands of
small blocks (no target: some 50 microseconds a block, and one `ast.parse` for a block that
defines something). Also the split of the property test's random answers
(tests/answers/code/random_answers.py): placed exactly / refused / wrong.

    .venv/bin/python bench/reading.py            # or: bench/run.py --only reading
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.edits import timed
from bench.results import Row, Section, table
from bench.stats import Summary
from rune_lsp.answers.code.reading import read_code
from tests.answers.code.random_answers import case

ANSWER_TARGET_MS = 50.0
LINE_TARGET_MS = 200.0
LINES = 400
MEGABYTE = 1_000_000


def numbered_answer(lines: int) -> tuple[str, str]:
    """A file and an answer copying all its lines numbered, the first and last changed (so no
    other tier places it: the numbers do)."""
    body = [f"value_{i} = compute({i}, factor={i % 7})" for i in range(lines)]
    file = "".join(line + "\n" for line in body)
    body[0] += "  # first"
    body[-1] += "  # last"
    numbered = "\n".join(f"{i + 1:>5} | {line}" for i, line in enumerate(body))
    return file, f"Here is the fix:\n\n```python\n{numbered}\n```\n"


def whole_file_answer(lines: int) -> tuple[str, str]:
    """A file of functions of ten lines each and the whole file back with one line fixed."""
    out = []
    for index in range(lines // 10):
        out += [
            f"def step_{index}(a, b):",
            f'    """Step {index}."""',
            "    total = a",
            "    for i in range(b):",
            f"        total += i * {index}",
            "    if total > 100:",
            "        total -= 1",
            "    return total - b",
            "",
            "",
        ]
    file = "\n".join(out) + "\n"
    fixed = file.replace("    return total - b\n", "    return total + b\n", 1)
    return file, f"```python\n{fixed}```\n"


def alike_functions(functions: int, lines: int) -> tuple[str, str]:
    """A file of functions whose bodies are the same `lines` lines, and the file with one
    function's result fixed and two body lines changed in every function."""
    out = []
    for index in range(functions):
        out += [f"def f_{index}():", *(f"    v_{k} = {k}" for k in range(lines))]
        out += [f"    return {index}", "", ""]
    file = "\n".join(out) + "\n"
    whole = file.replace("    return 7\n", "    return 7 + 1\n", 1)
    whole = whole.replace("    v_3 = 3\n", "    v_3 = 3  # three\n").replace(
        "    v_20 = 20\n", "    v_20 = 21\n"
    )
    return file, whole


def reading_rows(
    name: str, file: str, answer: str, target_ms: float | None, repeats: int
) -> list[Row]:
    reading = read_code(answer, {"prog.py": file}, "prog.py")
    outcome = "an edit" if reading.edits else "a refusal" if reading.refusal else "nothing"
    wall, cpu = timed(lambda: read_code(answer, {"prog.py": file}, "prog.py"), repeats)
    measure = f"read_code, {name} ({len(answer):,} characters; reads as {outcome})"
    return [
        Row(
            "7 reading",
            measure,
            "ms",
            Summary.of(wall),
            goal="" if target_ms is None else f"<= {target_ms:g} ms",
            met=None if target_ms is None else Summary.of(wall).median <= target_ms,
        ),
        Row("7 reading", "same, CPU time", "ms", Summary.of(cpu)),
    ]


def split(seeds: int) -> Counter[str]:
    """How the property test's random answers read: placed exactly, refused, or wrong."""
    from tests.answers.code.test_placement_property import outcome

    return Counter(outcome(case(seed)) for seed in range(seeds))


def run(quick: bool) -> Section:
    repeats = 5 if quick else 21
    seeds = 200 if quick else 2_000
    numbered_file, numbered = numbered_answer(LINES)
    whole_file, whole = whole_file_answer(LINES)
    prose_line = "The fix is simple: " + "change the sum " * (MEGABYTE // 15)
    fence_line = "```" + " " * MEGABYTE + "x`"
    rows = [
        *reading_rows(
            f"{LINES} numbered lines", numbered_file, numbered, ANSWER_TARGET_MS, repeats
        ),
        *reading_rows(f"a whole {LINES}-line file", whole_file, whole, ANSWER_TARGET_MS, repeats),
        *reading_rows("1 MB of prose on one line", whole_file, prose_line, LINE_TARGET_MS, repeats),
        *reading_rows(
            "1 MB line opening a fence, spaces then a backtick",
            whole_file,
            fence_line,
            LINE_TARGET_MS,
            repeats,
        ),
    ]
    # A function whose one line is 20,000 `#` inside a string, and another whose comment is
    # 10,000 `# `: the placeholder pattern once backtracked from every `#` (13 s and 7 s).
    hashes = (
        "```python\ndef step_1(a, b):\n    marker = '" + "#" * 20_000 + "'\n    return a\n```\n"
        "```python\ndef step_2(a, b):\n    return a  " + "# " * 10_000 + "\n```\n"
    )
    rows += reading_rows("a block line of 20,000 #", whole_file, hashes, ANSWER_TARGET_MS, repeats)
    # A file of 4,800 alike lines and a block of them at another depth: the block's text occurs
    # at every line, and checking each place line by line took 1.3 s.
    alike = "    x = 1\n" * 4_800
    misfit = "```python\nx = 1\n" + "        x = 1\n" * 2_399 + "```\n"
    rows += reading_rows("4,800 alike lines, the block deeper", alike, misfit, None, repeats)
    # The fixed function, then the whole file with the same fix: two overlapping placements
    # that agree (`spans.agreeing` aligns them).
    first = whole_file.split("\n\n\n", 1)[0].replace("return total - b", "return total + b")
    both = f"```python\n{first}\n```\n{whole}"
    rows += reading_rows("the fixed function, then the whole file", whole_file, both, None, repeats)
    # The same on a file of functions of alike lines, the whole file changed in every one of
    # them: aligning the two (`spans.agreeing`) took 20 s with difflib's SequenceMatcher.
    alike_file, alike_whole = alike_functions(200, 30)
    fixed_one = alike_whole.split("def f_7():")[1].split("\n\n\n")[0]
    alike_both = f"```python\ndef f_7():{fixed_one}\n```\n```python\n{alike_whole}```\n"
    rows += reading_rows(
        "a fixed function, then a whole file of alike functions", alike_file, alike_both, None, 3
    )
    # A whole file of 20,000 alike lines with the middle one changed: the edit's old text is
    # widened until it is unique, which one line at a time took 6 s of `minimal_edit`.
    alike_lines = "x = 1\n" * 20_000
    middle = alike_lines.replace("x = 1\n", "x = 2\n", 10_001).replace("x = 2\n", "x = 1\n", 10_000)
    rows += reading_rows(
        "a whole file of 20,000 alike lines, the middle one changed",
        alike_lines,
        f"```python\n{middle}```\n",
        None,
        3,
    )
    # Every line of the file ends in a space, and the whole file comes back with two lines
    # changed far apart: the lines between keep their spaces (aligned, `spans.FileText`).
    spaced = "".join(f"{line} \n" if line else "\n" for line in whole_file.split("\n")[:-1])
    far = whole.replace("* 38\n", "* 388\n")
    rows += reading_rows("a whole file, its trailing spaces kept", spaced, far, None, repeats)
    # Thousands of small blocks, each read against the file: the per-block work is the block's.
    piece = "```python\ndef step_1(a, b):\n    return a\n```\nand\n```python\n    total = a\n```\n"
    rows += reading_rows(
        "1 MB of the same two small blocks", whole_file, piece * (MEGABYTE // len(piece)), None, 3
    )
    distinct = "".join(
        f"```python\ndef step_{i % 40}(a, b):\n    return a + {i}\n```\n" for i in range(20_000)
    )
    rows += reading_rows(
        f"{len(distinct) // 1000} KB of distinct small blocks", whole_file, distinct, None, 3
    )
    started = time.perf_counter()
    found = split(seeds)
    elapsed = time.perf_counter() - started
    total = sum(found.values())
    rows.append(
        Row(
            "7 reading",
            f"random block answers ({total:,}): placed exactly {found['placed']:,}, "
            f"refused {found['refused']:,}, wrong {found['wrong']:,} ({elapsed:.0f} s)",
            "wrong",
            Summary.single(found["wrong"]),
            goal="0 wrong",
            met=found["wrong"] == 0,
        )
    )
    return Section("7 reading", tuple(rows), details={"split": dict(found)})


if __name__ == "__main__":
    print(table([run(quick="--quick" in sys.argv)]))
