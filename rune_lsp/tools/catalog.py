"""The tools as the model sees them: name, description, argument schema, mutating or not."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from rune_lsp.loop.state import ToolSpec
from rune_lsp.tools.read_file import MAX_LINES
from rune_lsp.tools.schemas import (
    EditFileArgs,
    ListDirArgs,
    ReadFileArgs,
    RunCommandArgs,
    SearchArgs,
    WriteFileArgs,
    tool_parameters,
)
from rune_lsp.tools.search import MAX_HITS


@dataclass(frozen=True)
class Tool:
    """One definition (satisfies the loop's `ToolDefinition`)."""

    spec: ToolSpec
    arguments_model: type[BaseModel]


def _tool(name: str, description: str, model: type[BaseModel], *, mutating: bool) -> Tool:
    spec = ToolSpec(
        name=name, description=description, parameters=tool_parameters(model), mutating=mutating
    )
    return Tool(spec=spec, arguments_model=model)


TOOLS: tuple[Tool, ...] = (
    _tool(
        "read_file",
        "Read a file with line numbers (`  12 | text`). Shows the editor's current text, "
        f"unsaved changes included. Long files come {MAX_LINES} lines at a time; "
        "the output says which start_line reads on.",
        ReadFileArgs,
        mutating=False,
    ),
    _tool(
        "list_dir",
        "List a directory's entries, sorted; directories end with `/`. Skips .git and what "
        ".gitignore ignores.",
        ListDirArgs,
        mutating=False,
    ),
    _tool(
        "search",
        "Search file contents with a regular expression. Returns `path:line: text` hits "
        f"sorted by path and line, at most {MAX_HITS}. Skips .git, .gitignore'd and "
        "binary files; open editor buffers are searched as currently edited.",
        SearchArgs,
        mutating=False,
    ),
    _tool(
        "edit_file",
        "Replace one exact, unique occurrence of old_text in a file with new_text. The user "
        "reviews the edit before it lands. Read the file first and copy old_text exactly.",
        EditFileArgs,
        mutating=True,
    ),
    _tool(
        "write_file",
        "Create a file, or replace a file's whole content. The user reviews it before it "
        "lands. Prefer edit_file for changes to part of an existing file.",
        WriteFileArgs,
        mutating=True,
    ),
    _tool(
        "run_command",
        "Run a shell command in the workspace root, e.g. the test suite, once the user "
        "approves it. Returns the exit status and the end of its output. No stdin.",
        RunCommandArgs,
        mutating=True,
    ),
)

TOOLS_BY_NAME: dict[str, Tool] = {tool.spec.name: tool for tool in TOOLS}
MUTATING: frozenset[str] = frozenset(t.spec.name for t in TOOLS if t.spec.mutating)
