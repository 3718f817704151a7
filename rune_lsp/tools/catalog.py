"""The tools as the model sees them: name, description, argument schema, mutating or not."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from rune_lsp.loop.messages import ToolSpec
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


#: Terse on purpose (issue 16): small local models read these on every request, and what a
#: tool's output looks like they learn from the output itself.
TOOLS: tuple[Tool, ...] = (
    _tool("read_file", "Read a file, with line numbers.", ReadFileArgs, mutating=False),
    _tool("list_dir", "List a directory.", ListDirArgs, mutating=False),
    _tool(
        "search",
        f"Search file contents by regular expression; at most {MAX_HITS} `path:line: text` hits.",
        SearchArgs,
        mutating=False,
    ),
    _tool(
        "edit_file",
        "Replace old_text, which must occur exactly once in the file, with new_text. "
        "The user reviews the edit.",
        EditFileArgs,
        mutating=True,
    ),
    _tool(
        "write_file",
        "Create or overwrite a whole file; prefer edit_file to change part of one.",
        WriteFileArgs,
        mutating=True,
    ),
    _tool(
        "run_command",
        "Run a shell command in the workspace root once the user approves it; returns its exit "
        "status and the end of its output.",
        RunCommandArgs,
        mutating=True,
    ),
)

TOOLS_BY_NAME: dict[str, Tool] = {tool.spec.name: tool for tool in TOOLS}
MUTATING: frozenset[str] = frozenset(t.spec.name for t in TOOLS if t.spec.mutating)
