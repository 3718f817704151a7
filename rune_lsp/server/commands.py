"""Typed arguments of the `workspace/executeCommand` commands (docs/interface.md#commands).

Editors send JSON; each command validates its single argument object here so a wrong shape
gets an InvalidParams error that names the field, never a crash halfway through a run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, TypeVar

from cattrs import transform_error
from lsprotocol import converters, types
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pygls.exceptions import JsonRpcInvalidParams

from rune_lsp.loop.task import FixTarget, TaskDiagnostic

_converter = converters.get_converter()


class _Args(BaseModel):
    # Strict: JSON's `true`, `"2"` or `3.0` is no hunk number (issue 25, item 9); validated
    # from JSON text (`parse`), so an array is still a tuple.
    model_config = ConfigDict(frozen=True, extra="ignore", strict=True)


class PositionArg(_Args):
    line: int = Field(ge=0)
    character: int = Field(ge=0)


class RangeArg(_Args):
    start: PositionArg
    end: PositionArg


class FixThisArgs(_Args):
    uri: str = Field(min_length=1)
    range: RangeArg | None = None
    instruction: str | None = None
    diagnostics: tuple[dict[str, Any], ...] = ()
    #: A follow-up turn: the runId whose conversation the new run continues.
    continues: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _follow_up_says_something(self) -> FixThisArgs:
        if self.continues is not None and not (self.instruction or "").strip():
            raise ValueError("a follow-up (continues) needs an instruction")
        return self

    @field_validator("diagnostics")
    @classmethod
    def _lsp_diagnostics(cls, value: tuple[dict[str, Any], ...]) -> tuple[dict[str, Any], ...]:
        for index, item in enumerate(value):
            try:
                _converter.structure(item, types.Diagnostic)
            except Exception as exc:  # lsprotocol's converter raises cattrs' own error types
                problems = "; ".join(transform_error(exc, path=f"diagnostics[{index}]"))
                raise ValueError(f"not an LSP Diagnostic: {problems}") from None
        return value

    def lsp_diagnostics(self) -> list[types.Diagnostic]:
        return [_converter.structure(item, types.Diagnostic) for item in self.diagnostics]

    def target(self, path: Path) -> FixTarget:
        """What to fix, in the runner's editor-neutral terms (`path`: the uri's file)."""
        return FixTarget(
            path=path,
            start_line=self.range.start.line if self.range else None,
            end_line=self.range.end.line if self.range else None,
            instruction=self.instruction,
            diagnostics=tuple(_task_diagnostic(d) for d in self.lsp_diagnostics()),
            continues=self.continues,
        )


class RunIdArgs(_Args):
    run_id: str = Field(alias="runId", min_length=1)


class EditIdArgs(_Args):
    edit_id: str = Field(alias="editId", min_length=1)


class EditVerdictArgs(EditIdArgs):
    """`rune.acceptEdit` / `rune.rejectEdit`: a rejection's reason is told to the model."""

    reason: str = Field(default="", max_length=2000)


class HunkArgs(EditVerdictArgs):
    """`rune.acceptHunk` / `rune.rejectHunk`. `hunkId`: the hunk's number in the edit (from
    the diagnostic's `data`); `lines`: accept only these changed lines of it, numbered as
    `rune_lsp.review.hunks.LINE_NUMBERING` says."""

    hunk_id: int = Field(alias="hunkId", ge=1)
    lines: tuple[Annotated[int, Field(ge=1)], ...] | None = Field(default=None, min_length=1)


class KeepLinesArgs(_Args):
    """`rune.keepLines`: the text that replaces a hunk's old lines when only `lines` of its
    changed lines are accepted (`rune_lsp.review.hunks.LINE_NUMBERING`), so that every client
    decides a per-line accept by the server's one rule."""

    model_config = ConfigDict(frozen=True, extra="ignore", strict=True)

    old_text: str = Field(alias="oldText", max_length=1_000_000)
    new_text: str = Field(alias="newText", max_length=1_000_000)
    lines: list[Annotated[int, Field(ge=1)]] = Field(min_length=1, max_length=10_000)


A = TypeVar("A", bound=_Args)


def parse(model: type[A], command: str, args: tuple[Any, ...]) -> A:
    """The first argument of `command` as `model`, or InvalidParams naming what is wrong."""
    if len(args) != 1:
        raise JsonRpcInvalidParams(f"{command} takes one argument object, got {len(args)}")
    try:
        # As JSON text: strict types as JSON has them (an array is a tuple, 3.0 no int), which
        # Python-mode strictness cannot say of the decoded objects.
        return model.model_validate_json(json.dumps(args[0]))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'argument'}: {err['msg']}"
            for err in exc.errors()
        )
        raise JsonRpcInvalidParams(f"{command}: {problems}") from None
    except Exception as exc:  # lsprotocol's converter raises its own types
        raise JsonRpcInvalidParams(f"{command}: {exc}") from None


_SEVERITY = {
    types.DiagnosticSeverity.Error: "error",
    types.DiagnosticSeverity.Warning: "warning",
    types.DiagnosticSeverity.Information: "information",
    types.DiagnosticSeverity.Hint: "hint",
}


def _task_diagnostic(diagnostic: types.Diagnostic) -> TaskDiagnostic:
    return TaskDiagnostic(
        line=diagnostic.range.start.line,
        message=diagnostic.message,
        severity=_SEVERITY.get(diagnostic.severity, "error") if diagnostic.severity else "error",
        source=diagnostic.source,
        code=str(diagnostic.code) if diagnostic.code is not None else None,
    )
