"""The recorded and constructed cases of issue 24, one folder each under `tests/answers/cases/`.

A case folder holds:

- `case.json`: `target` (the run's file), `source` (model + server + task of a recording,
  `audit issue 24 item N`, or `synthetic`), `expect` (`placed`, `refused`, `unchanged` or
  `nothing`), `why` (what the case pins), optional `mentions` (words the refusal must contain)
  optional `calls` (the calls the text-call reader must find; see `ExpectedCall`) and, for
  `unchanged`, optional `unchanged` (the files the blocks are code of, when the answer names
  one: the loop's note names it), and for `placed` optional `layout_only` (the edits change
  only layout: while the tests fail, the loop takes them as the code sent back), optional
  `shown` (the files the run showed beside the target, which a block may be code of instead:
  answers/code/owner.py);
- `answer.md`: the model's raw text, verbatim;
- `before/<relative paths>`: the files as they were (the target among them, unless the case is
  about an unreadable target);
- `after/<relative paths>`: for `placed`, every file the edits change, byte for byte.

Files are read as bytes and decoded as UTF-8, so `\\r` and `\\r\\n` line endings are kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

CASES = Path(__file__).parent / "cases"

Expect = Literal["placed", "refused", "unchanged", "nothing"]


class ExpectedCall(BaseModel):
    """A tool call the answer makes, as the text-call reader must read it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    # As the reader hands them over: an object, or the JSON text a model wrote that does not
    # parse (it is answered with why).
    arguments: dict[str, Any] | str


class CaseSpec(BaseModel):
    """`case.json`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    target: str
    source: str
    expect: Expect
    why: str
    mentions: tuple[str, ...] = ()
    calls: tuple[ExpectedCall, ...] | None = None
    unchanged: tuple[str, ...] | None = None
    #: For `placed`: whether the edits change only blank lines, comments or layout.
    layout_only: bool = False
    #: The files the run showed the model beside the target (a failing test's module under
    #: test and the files it uses).
    shown: tuple[str, ...] = ()


@dataclass(frozen=True)
class Case:
    """One case folder, loaded."""

    name: str
    spec: CaseSpec
    answer: str
    before: dict[str, str]  # relative path -> text
    after: dict[str, str]  # relative path -> text, for `placed`


def _files(root: Path) -> dict[str, str]:
    if not root.is_dir():
        return {}
    return {
        path.relative_to(root).as_posix(): path.read_bytes().decode("utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def load_case(folder: Path) -> Case:
    spec = CaseSpec.model_validate_json((folder / "case.json").read_bytes())
    after = _files(folder / "after")
    if (spec.expect == "placed") != bool(after):
        raise ValueError(f"{folder.name}: `after/` is for placed cases, and only for them")
    return Case(
        name=folder.name,
        spec=spec,
        answer=(folder / "answer.md").read_bytes().decode("utf-8"),
        before=_files(folder / "before"),
        after=after,
    )


def all_cases() -> list[Case]:
    """Every case folder, by name."""
    return [load_case(folder) for folder in sorted(CASES.iterdir()) if folder.is_dir()]
