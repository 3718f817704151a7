"""The half of `search` that evaluates the model's patterns, in a child process with a deadline.

Python's `re` holds the GIL while it matches, even in a worker thread, and a pattern such as
`(a+)+$` backtracks for minutes on one line of `a`s; pathspec turns a glob such as
`*a*a*a*a*a*a*a*a*a*b` into a regex with the same flaw. Both come from the model. Here they run
in a process of its own session that `run_job` kills, with any `rg` it started, at the deadline:
a bad pattern costs one tool result, never a frozen server.

The parent walks the tree (no model pattern involved) and sends a `Job`; this side filters by
the glob, lets ripgrep narrow the disk files, reads, matches and answers a `Report`. It imports
only the standard library, pathspec and the light tool modules, so it starts in a few tens of
milliseconds (measured in tests/tools/test_search_deadline.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rune_lsp.text_clip import IN_LINE, clip
from rune_lsp.tools.documents import MAX_TEXT_BYTES, DiskDocuments
from rune_lsp.tools.errors import BinaryFileError, BlockedDocument, DocumentError, ToolError
from rune_lsp.tools.ripgrep import ripgrep_candidates
from rune_lsp.tools.text import iter_lines

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

#: Files handed to ripgrep at once; the scan stops early once enough hits are found.
_CHUNK = 512
#: Seconds between two looks at the caller's stop event while the child works.
_STOP_POLL = 0.1


@dataclass(frozen=True)
class Candidate:
    path: str
    shown: str
    relative: str  # to the search's base directory, what the glob is matched against
    buffer: str | None  # the open editor buffer's text; None: the file is read from disk


@dataclass(frozen=True)
class Job:
    pattern: str
    glob: str | None
    candidates: tuple[Candidate, ...]
    ripgrep: str | None
    named: bool  # the model named this one file as `path`: its reason to be skipped matters
    max_hits: int
    hit_chars: int


@dataclass(frozen=True)
class Skipped:
    """A file that may hold a match but could not be searched as text, and why."""

    shown: str
    reason: str


@dataclass(frozen=True)
class Report:
    rows: tuple[str, ...]  # `path:line: text`, in file order
    more: bool  # more hits exist than `max_hits`
    skipped: tuple[Skipped, ...]


@dataclass(frozen=True)
class Glob:
    spec: GitIgnoreSpec
    negated: bool

    @classmethod
    def parse(cls, glob: str) -> Glob:
        from pathspec import GitIgnoreSpec  # here: most searches have no glob, and start faster

        negated = glob.startswith("!")
        body = glob[1:] if negated else glob
        try:
            spec = GitIgnoreSpec.from_lines([body])
        except (ValueError, TypeError) as exc:
            raise ToolError(f"Invalid glob {glob!r}: {exc}") from exc
        return cls(spec, negated)

    def admits(self, relative: str) -> bool:
        return self.spec.match_file(relative) != self.negated


# --- the parent's side --------------------------------------------------------------------------


class WorkerError(Exception):
    """The child could not run or answered nothing usable; the message says what it printed."""


def run_job(job: Job, timeout: float, stop: threading.Event | None = None) -> Report:
    """Run `job` in a child process; `subprocess.TimeoutExpired` once `timeout` seconds pass,
    `SearchStopped` soon after `stop` is set (the run was cancelled).

    Blocking, but only in waiting on the child (the GIL is free meanwhile): callers run it in a
    worker thread. Either way out, the child's whole process group is killed.
    """
    process = subprocess.Popen(
        [sys.executable, "-m", __name__],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_child_env(),
        start_new_session=True,  # its own group: rg and anything else it starts die with it
    )
    try:
        out, err = _wait(process, _encode(job), time.monotonic() + timeout, stop)
    except BaseException:  # the deadline, a stop, or the caller going away: nothing outlives it
        _kill_group(process)
        process.communicate()
        raise
    if process.returncode != 0:
        lines = err.decode("utf-8", errors="replace").strip().splitlines()
        raise WorkerError(lines[-1] if lines else f"exit status {process.returncode}")
    try:
        return _decode_report(out)
    except (ValueError, KeyError, TypeError) as exc:
        raise WorkerError(f"unreadable answer ({exc})") from exc


class SearchStopped(Exception):
    """The caller set its stop event: the answer is no longer wanted."""


def _wait(
    process: subprocess.Popen[bytes], data: bytes, deadline: float, stop: threading.Event | None
) -> tuple[bytes, bytes]:
    # communicate() may be retried after a timeout without losing output (the input is given
    # only once), so it is called in short slices, looking at the stop event between them.
    given: bytes | None = data
    while True:
        left = deadline - time.monotonic()
        try:
            return process.communicate(given, timeout=max(min(left, _STOP_POLL), 0.0))
        except subprocess.TimeoutExpired:
            given = None
            if stop is not None and stop.is_set():
                raise SearchStopped from None
            if time.monotonic() >= deadline:
                raise


def _child_env() -> dict[str, str]:
    """This process's environment with its import path, so `-m` finds this same package."""
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    return env


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    # ProcessLookupError: the group is already gone.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _encode(job: Job) -> bytes:
    # ASCII escapes keep lone surrogates (undecodable file names, odd buffers) round-tripping.
    return json.dumps(asdict(job)).encode("ascii")


def _decode_job(data: bytes) -> Job:
    raw: dict[str, Any] = json.loads(data)
    candidates = tuple(Candidate(**entry) for entry in raw.pop("candidates"))
    return Job(candidates=candidates, **raw)


def _decode_report(data: bytes) -> Report:
    raw: dict[str, Any] = json.loads(data)
    return Report(
        rows=tuple(raw["rows"]),
        more=bool(raw["more"]),
        skipped=tuple(Skipped(**entry) for entry in raw["skipped"]),
    )


# --- the child's side ---------------------------------------------------------------------------


def scan(job: Job) -> Report:
    """Hits in file order, at most `max_hits`, and what could not be searched."""
    regex = re.compile(job.pattern)
    glob = Glob.parse(job.glob) if job.glob else None
    candidates = [c for c in job.candidates if glob is None or glob.admits(c.relative)]
    rows: list[str] = []
    skipped: list[Skipped] = []
    for offset in range(0, len(candidates), _CHUNK):
        chunk = candidates[offset : offset + _CHUNK]
        for candidate in _worth_reading(chunk, job):
            for number, line in _hits_in(candidate, regex, job.named, skipped):
                if len(rows) == job.max_hits:
                    return Report(tuple(rows), True, tuple(skipped))
                rows.append(
                    f"{candidate.shown}:{number}: {clip(line, job.hit_chars, marker=IN_LINE)}"
                )
    return Report(tuple(rows), False, tuple(skipped))


def _worth_reading(chunk: Sequence[Candidate], job: Job) -> list[Candidate]:
    if job.ripgrep is None or job.named:  # one named file: rg saves nothing, and must not hide
        return list(chunk)
    on_disk = [Path(c.path) for c in chunk if c.buffer is None]
    maybe = ripgrep_candidates(job.ripgrep, job.pattern, on_disk) if on_disk else set()
    if maybe is None:
        return list(chunk)
    return [c for c in chunk if c.buffer is not None or Path(c.path) in maybe]


def _hits_in(
    candidate: Candidate, regex: re.Pattern[str], named: bool, skipped: list[Skipped]
) -> Iterator[tuple[int, str]]:
    text = candidate.buffer
    if text is None:
        try:
            text = DiskDocuments().read_text(Path(candidate.path))
        except DocumentError as exc:
            if isinstance(exc, BlockedDocument) and not named:
                # Never listed: a note that depends on whether it matched is an oracle on a
                # credential's content (rg pre-filters by match).
                return
            if named or not isinstance(exc, BinaryFileError) or _bytes_match(candidate, regex):
                skipped.append(Skipped(candidate.shown, str(exc)))
            return
    if text is None:  # gone since the walk
        return
    for number, line in enumerate(iter_lines(text), start=1):
        if regex.search(line):
            yield number, line


def _bytes_match(candidate: Candidate, regex: re.Pattern[str]) -> bool:
    """Whether a binary file's bytes, read leniently, hold a match: only those are worth a
    note, and ripgrep (which matches bytes) leaves the same ones for us to read."""
    try:
        with open(candidate.path, "rb") as handle:
            data = handle.read(MAX_TEXT_BYTES)
    except OSError:
        return True  # it could not be looked at, so it may hold one
    text = data.decode("utf-8", errors="replace")
    return any(regex.search(line) for line in iter_lines(text))


def main() -> None:
    report = scan(_decode_job(sys.stdin.buffer.read()))
    sys.stdout.write(json.dumps(asdict(report)))


if __name__ == "__main__":
    main()
