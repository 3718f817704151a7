"""Arguments of each tool: validated models, and the slim schema of them the model reads.

Field descriptions are written for small models, which pay for every token of them on every
request: an argument has one only when its name and type do not say it all (paths are relative
to the workspace root, as the task names its file; absolute ones work too). Unknown arguments
are rejected (`extra="forbid"`) so a misspelt argument is reported instead of silently ignored.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReadFileArgs(_Args):
    path: str
    start_line: int | None = Field(None, ge=1, description="First line, 1-based.")
    end_line: int | None = Field(None, ge=1, description="Last line, inclusive.")

    @model_validator(mode="after")
    def _ordered(self) -> ReadFileArgs:
        start, end = self.start_line, self.end_line
        if start is not None and end is not None and end < start:
            raise ValueError("end_line must not be smaller than start_line")
        return self


class ListDirArgs(_Args):
    path: str = Field(".", description="Directory. Default: the workspace root.")


class SearchArgs(_Args):
    pattern: str = Field(min_length=1, description="Python regular expression.")
    path: str | None = Field(None, description="File or directory. Default: the workspace.")
    glob: str | None = Field(None, description="e.g. `*.py`; a leading `!` excludes.")


class EditFileArgs(_Args):
    path: str
    old_text: str = Field(
        description="The exact current lines, indentation included, without line numbers."
    )
    new_text: str


class WriteFileArgs(_Args):
    path: str
    content: str


class RunCommandArgs(_Args):
    command: str = Field(min_length=1)


def tool_parameters(model: type[BaseModel]) -> dict[str, Any]:
    """What the model reads of `model`'s JSON schema: each argument's type and description,
    and which are required. Every other field costs tokens the model does not use: pydantic's
    titles, `default`, bounds and `additionalProperties` are enforced by validation, which
    reports a wrong argument to the model anyway, and `anyOf [T, null]` is just `T` to it."""
    schema = model.model_json_schema()
    shown: dict[str, Any] = {"type": "object", "properties": {}}
    for name, field in schema["properties"].items():
        shown["properties"][name] = _argument(field)
    if schema.get("required"):
        shown["required"] = list(schema["required"])
    return shown


def _argument(field: dict[str, Any]) -> dict[str, Any]:
    branches = [b for b in field.get("anyOf", [field]) if b.get("type") != "null"]
    kind = branches[0].get("type") if len(branches) == 1 else None
    shown: dict[str, Any] = {} if kind is None else {"type": kind}
    if field.get("description"):
        shown["description"] = field["description"]
    return shown
