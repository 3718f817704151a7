"""A tiny dataset in ConDefects' layout (Code/<task>/Python/<id>/..., Test/<task>/in|out),
written here for the real-bugs loader's tests: no file of the real dataset is in this repo."""

from __future__ import annotations

from pathlib import Path

#: How each program reads its input: a count, then that many numbers.
READ = """import sys


def read_numbers():
    count = int(sys.stdin.readline())
    numbers = list(map(int, sys.stdin.readline().split()))
    assert len(numbers) == count
    return numbers
"""

#: Sums the even numbers of a list; the faulty version sums the odd ones.
EVENS = (
    READ
    + """

def wanted(x):
    return x % 2 == {rest}


def total(numbers):
    result = 0
    for x in numbers:
        if wanted(x):
            result += x
    return result


def main():
    numbers = read_numbers()
    print(total(numbers))


main()
"""
)

#: The largest number of a list; the faulty version starts from 0, wrong when all are negative.
LARGEST = (
    READ
    + """

def largest(numbers):
    best = {start}
    for x in numbers:
        if x > best:
            best = x
    return best


def main():
    numbers = read_numbers()
    answer = largest(numbers)
    print(answer)


main()
"""
)

PYTHON2 = "n = int(raw_input())\n" + "".join(f"a{i} = n + {i}\n" for i in range(20)) + "print n\n"
SHORT = "print(int(input()) - 1)\n"
SHORT_FIXED = "print(int(input()) + 1)\n"


def _submission(root: Path, task: str, ident: str, faulty: str, correct: str, line: int) -> None:
    directory = root / "Code" / task / "Python" / ident
    directory.mkdir(parents=True)
    (directory / "faultyVersion.py").write_text(faulty, encoding="utf-8")
    (directory / "correctVersion.py").write_text(correct, encoding="utf-8")
    (directory / "faultLocation.txt").write_text(str(line), encoding="utf-8")


def _cases(root: Path, task: str, cases: dict[str, tuple[str, str]]) -> None:
    for name, (given, expected) in cases.items():
        for side, text in (("in", given), ("out", expected)):
            (root / "Test" / task / side).mkdir(parents=True, exist_ok=True)
            (root / "Test" / task / side / name).write_text(text, encoding="utf-8")


def make_dataset(root: Path) -> Path:
    """abc900_a (two submissions of one bug), abc900_b (a bug only its largest case shows),
    abc900_c (Python 2), abc900_d (too short), abc900_e (a bug no case shows), abc900_f (no
    cases)."""
    evens = EVENS.format(rest=0)
    _submission(root, "abc900_a", "1001", EVENS.format(rest=1), evens, 12)
    _submission(root, "abc900_a", "1002", EVENS.format(rest=1), evens, 12)
    _cases(root, "abc900_a", {"sample_01.txt": ("3\n1 2 4\n", "6\n")})
    least = LARGEST.format(start=-(10**9))
    _submission(root, "abc900_b", "2001", LARGEST.format(start=0), least, 12)
    _cases(
        root,
        "abc900_b",
        {
            "sample_01.txt": ("3\n1 5 2\n", "5\n"),
            "sample_02.txt": ("2\n3 3\n", "3\n"),
            "zz_negative.txt": ("5\n-40 -20 -90 -10 -30\n", "-10\n"),
        },
    )
    _submission(root, "abc900_c", "3001", PYTHON2, PYTHON2.replace("print n", "print n + 1"), 22)
    _cases(root, "abc900_c", {"sample_01.txt": ("1\n", "2\n")})
    _submission(root, "abc900_d", "4001", SHORT, SHORT_FIXED, 1)
    _cases(root, "abc900_d", {"sample_01.txt": ("1\n", "2\n")})
    _submission(root, "abc900_e", "5001", LARGEST.format(start=0), LARGEST.format(start=-1), 12)
    _cases(root, "abc900_e", {"sample_01.txt": ("3\n1 5 2\n", "5\n")})
    _submission(root, "abc900_f", "6001", EVENS.format(rest=1), evens, 12)
    return root
