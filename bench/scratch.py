"""Target 7: the scratch copy candidate fixes are checked in, on a 10,000-file git repository.

A repository of 10,000 small Python files in nested packages (plus an ignored `.venv` of 2,000
files that must not be copied) is generated in a temp dir and committed. Timed, each round in
a fresh copy: setting the copy up (`ScratchCopy` + `populate`: `git ls-files` and the copy,
in `/dev/shm` when it has room, as a run does), staging one candidate over it (what each
further candidate costs: the listing, a stat of every file, the changed files), and removing
it.

    .venv/bin/python -m bench.scratch [ROUNDS]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.results import Row, Section
from bench.stats import Summary
from rune_lsp.runner.scratch import ScratchCopy, scratch_parent

FILES = 10_000
IGNORED = 2_000
PER_PACKAGE = 50
#: Seconds setting the copy up may take (issue 26: "under a few seconds").
TARGET_SETUP = 3.0


def generate(root: Path) -> None:
    """`FILES` tracked files (`PER_PACKAGE` per folder, about 1 KB each) and an ignored .venv."""
    for number in range(FILES):
        package = root / "src" / f"pkg{number // PER_PACKAGE // 20}" / f"mod{number // PER_PACKAGE}"
        package.mkdir(parents=True, exist_ok=True)
        body = "".join(f"def f{i}(x):\n    return x + {number * 10 + i}\n\n\n" for i in range(20))
        (package / f"m{number}.py").write_text(body)
    venv = root / ".venv" / "lib"
    venv.mkdir(parents=True)
    for number in range(IGNORED):
        (venv / f"dep{number}.py").write_text("x = 1\n")
    (root / ".gitignore").write_text(".venv/\n")
    git = ["git", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run(
        [*git, "-c", "user.name=bench", "-c", "user.email=b@b", "commit", "-qm", "bench"],
        check=True,
    )


def measure(root: Path, parent: Path, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"setup": [], "stage": [], "remove": []}
    target = next((root / "src").rglob("m0.py")).relative_to(root).as_posix()
    copied = 0
    for _ in range(rounds):
        started = time.perf_counter()
        copy = ScratchCopy(root, parent=parent)
        copied = copy.populate()
        times["setup"].append(time.perf_counter() - started)
        started = time.perf_counter()
        copy.stage({target: "def f0(x):\n    return x\n"})
        times["stage"].append(time.perf_counter() - started)
        started = time.perf_counter()
        copy.remove()
        times["remove"].append(time.perf_counter() - started)
    if copied != FILES + 1:  # the files and .gitignore; nothing of .venv
        raise RuntimeError(f"copied {copied} files, expected {FILES + 1}")
    return times


def run(rounds: int) -> Section:
    with tempfile.TemporaryDirectory(prefix="rune-bench-scratch-") as temp:
        root, parent = Path(temp) / "repo", scratch_parent() / "bench"
        root.mkdir()
        started = time.perf_counter()
        generate(root)
        generated = time.perf_counter() - started
        times = measure(root, parent, rounds)
    setup = Summary.of(times["setup"])
    label = f"{FILES:,}-file git repo"
    return Section(
        "7 scratch copy",
        (
            Row(
                "7 scratch copy",
                f"set-up ({label})",
                "s",
                setup,
                goal=f"< {TARGET_SETUP:g} s",
                met=setup.median < TARGET_SETUP,
            ),
            Row("7 scratch copy", "one more candidate (stage)", "s", Summary.of(times["stage"])),
            Row("7 scratch copy", "removal", "s", Summary.of(times["remove"])),
        ),
        details={"files": FILES, "ignored": IGNORED, "generate_s": round(generated, 1), **times},
    )


def main(argv: list[str]) -> int:
    rounds = int(argv[0]) if argv else 5
    section = run(rounds)
    for row in section.rows:
        value = row.value
        shown = f"{value.median:.2f} s (p25 {value.p25:.2f}, p75 {value.p75:.2f}, n={value.n})"
        print(f"{row.measure}: {shown}" + (f"  goal {row.goal}: {row.met}" if row.goal else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
