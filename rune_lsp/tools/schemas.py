"""Arguments of each tool: validated models whose JSON schema is what the model reads.

Field descriptions are written for the model. Unknown arguments are rejected (`extra="forbid"`)
so a misspelt argument is reported instead of silently ignored.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReadFileArgs(_Args):
    path: str = Field(description="File to read, relative to the workspace root (or absolute).")
    start_line: int | None = Field(
        None, ge=1, description="First line to show (1-based). Default: the first line."
    )
    end_line: int | None = Field(
        None, ge=1, description="Last line to show, inclusive. Default: as many as fit."
    )

    @model_validator(mode="after")
    def _ordered(self) -> ReadFileArgs:
        start, end = self.start_line, self.end_line
        if start is not None and end is not None and end < start:
            raise ValueError("end_line must not be smaller than start_line")
        return self


class ListDirArgs(_Args):
    path: str = Field(
        ".", description="Directory to list, relative to the workspace root. Default: the root."
    )


class SearchArgs(_Args):
    pattern: str = Field(
        min_length=1,
        description="Regular expression (Python syntax) matched against each line.",
    )
    path: str | None = Field(
        None, description="File or directory to search in. Default: the whole workspace."
    )
    glob: str | None = Field(
        None,
        description="Only search files matching this glob, e.g. `*.py` or `src/**/*.ts`; "
        "a leading `!` excludes instead.",
    )


class EditFileArgs(_Args):
    path: str = Field(description="File to edit, relative to the workspace root.")
    old_text: str = Field(
        description="Exact text to replace, including whitespace and indentation. It must "
        "occur exactly once in the file: include enough surrounding lines to make it unique."
    )
    new_text: str = Field(description="Text that replaces old_text.")


class WriteFileArgs(_Args):
    path: str = Field(description="File to create or replace, relative to the workspace root.")
    content: str = Field(description="The complete new content of the file.")


class RunCommandArgs(_Args):
    command: str = Field(
        min_length=1,
        description="Shell command, run in the workspace root after the user approves it.",
    )


def tool_parameters(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema without pydantic's `title` noise (tokens the model pays for)."""
    return _without_titles(model.model_json_schema())


def _without_titles(schema: dict[str, Any]) -> dict[str, Any]:
    cleaned: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title":
            continue
        if key in ("properties", "$defs") and isinstance(value, dict):
            cleaned[key] = {name: _without_titles(sub) for name, sub in value.items()}
        elif isinstance(value, dict):
            cleaned[key] = _without_titles(value)
        elif isinstance(value, list):
            cleaned[key] = [_without_titles(v) if isinstance(v, dict) else v for v in value]
        else:
            cleaned[key] = value
    return cleaned
