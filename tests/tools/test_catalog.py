"""What the model is told: schemas, descriptions, unknown-argument reporting."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from rune_lsp.tools.catalog import TOOLS_BY_NAME
from rune_lsp.tools.schemas import ListDirArgs, ReadFileArgs, SearchArgs, tool_parameters


def test_the_schema_holds_only_types_descriptions_and_what_is_required() -> None:
    """Issue 16: each token of it is paid on every request; validation enforces the rest."""
    assert tool_parameters(ReadFileArgs) == {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "start_line": {"type": "integer", "description": "First line, 1-based."},
            "end_line": {"type": "integer", "description": "Last line, inclusive."},
        },
        "required": ["path"],
    }
    # What the slim schema leaves out still holds: a bound, and no arguments beyond its own.
    with pytest.raises(ValidationError):
        ReadFileArgs.model_validate({"path": "a", "start_line": None, "end_line": 0})
    with pytest.raises(ValidationError, match="extra_forbidden"):
        ReadFileArgs.model_validate({"path": "a", "lines": "1-2"})


def test_every_tool_has_a_description_and_every_type_is_plain() -> None:
    for name, tool in TOOLS_BY_NAME.items():
        assert tool.spec.name == name
        assert tool.spec.description.endswith(".")
        for prop in tool.spec.parameters["properties"].values():
            assert set(prop) <= {"type", "description"}, name
            assert prop["type"] in ("string", "integer"), name
    old_text = TOOLS_BY_NAME["edit_file"].spec.parameters["properties"]["old_text"]
    assert "without line numbers" in old_text["description"]


def test_unknown_arguments_are_reported() -> None:
    with pytest.raises(ValidationError, match="extra_forbidden"):
        SearchArgs.model_validate({"pattern": "x", "regex": True})


def test_line_range_is_validated() -> None:
    with pytest.raises(ValidationError):
        ReadFileArgs(path="a", start_line=0)
    with pytest.raises(ValidationError, match="end_line must not be smaller"):
        ReadFileArgs(path="a", start_line=5, end_line=2)
    assert ReadFileArgs.model_validate({"path": "a", "start_line": "3"}).start_line == 3


def test_search_pattern_must_not_be_empty() -> None:
    with pytest.raises(ValidationError):
        SearchArgs(pattern="")


#: docs/interface.md#tools-the-model-sees: (argument names, required ones, mutating).
#: list_dir's path is optional (it lists the root by default), a superset of `list_dir(path)`.
CONTRACT_SIGNATURES = {
    "read_file": (["path", "start_line", "end_line"], {"path"}, False),
    "list_dir": (["path"], set(), False),
    "search": (["pattern", "path", "glob"], {"pattern"}, False),
    "edit_file": (["path", "old_text", "new_text"], {"path", "old_text", "new_text"}, True),
    "write_file": (["path", "content"], {"path", "content"}, True),
    "run_command": (["command"], {"command"}, True),
}


def test_every_tool_takes_the_arguments_the_contract_names() -> None:
    signatures = {
        name: (
            list(tool.spec.parameters["properties"]),
            set(tool.spec.parameters.get("required", ())),
            tool.spec.mutating,
        )
        for name, tool in TOOLS_BY_NAME.items()
    }
    assert signatures == CONTRACT_SIGNATURES
    assert (
        "Default: the workspace root"
        in tool_parameters(ListDirArgs)["properties"]["path"]["description"]
    )
    assert ListDirArgs().path == "."
