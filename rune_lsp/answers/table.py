"""The reader table: per kind of turn, what the model is offered, which readers listen to its
answer, and its system message. Nothing else decides these (docs/architecture.md#the-reader-table).

- `code_first`: no tools (no schemas, no text protocol); code blocks read (and a native call,
  should a server return one unasked; never a call written as text); `CODE_GUIDANCE`; no
  corrective turns.
- `tools`: the schemas (native tools) or the text protocol's prompt; native calls, calls
  written as text and code blocks read; `GUIDANCE`, ending with `GUIDANCE_TAIL`; corrective
  turns (loop/protocol_choice.py).
- `synthesis`: no tools; nothing read, the words are the answer; `SYNTHESIS_GUIDANCE`.

`code_first` is a fix's first turn with `firstTurn: code` (the default): offered tools,
Qwen2.5-Coder 1.5B answered a failing test with `edit_file` calls on lines of pytest's report;
offered none, it wrote the corrected function (bench/effect, 12 tasks with checkCommand: 9
fixed against 4, docs/performance.md). A turn that offers no tools neither describes them nor
reads calls out of its answer, and its system message does not speak of tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rune_lsp.interface import FirstTurn

TurnKind = Literal["code_first", "tools", "synthesis"]
Reader = Literal["native", "text_calls", "code"]

#: The exact closing sentence of the system message of every turn that offers tools
#: (docs/interface.md#system-guidance).
GUIDANCE_TAIL = (
    "Use tools for every file/command action; never fabricate tool output. "
    "Read before editing; verify fixes by running them."
)
#: Short: a small local model reads it on every request (issue 16 measured each token of it).
GUIDANCE = (
    "You are a coding agent. You see and change the user's workspace only through tools, and "
    "the user reviews every change. Make the smallest change that solves the task. When done, "
    "reply without tools: what you changed and why, or why you could not.\n" + GUIDANCE_TAIL
)
#: The code-first turn offers no tools: its code block is the change (issue 26, point 4).
CODE_GUIDANCE = (
    "You are a coding agent. The code block you answer with becomes a change of the file, "
    "which the user reviews. Make the smallest change that solves the task."
)
#: The last turn of a run the repeat guard ended: no tools, words only.
SYNTHESIS_GUIDANCE = "You are a coding agent. No tools are available now: answer in words."


@dataclass(frozen=True)
class Row:
    kind: TurnKind
    offers_tools: bool  # the tool schemas (native) or the text protocol's prompt
    readers: frozenset[Reader]
    guidance: str  # the system message's fixed text; a front end's own goes before it
    coaches: bool  # a prose answer may get the protocol choice's corrective turns

    def listens(self, reader: Reader) -> bool:
        return reader in self.readers


ROWS: dict[TurnKind, Row] = {
    "code_first": Row(
        "code_first",
        offers_tools=False,
        # A native call needs tools offered; one a server returns anyway was still made by the
        # model, so it is answered like any call. Calls written as text are not read here.
        readers=frozenset({"native", "code"}),
        guidance=CODE_GUIDANCE,
        coaches=False,
    ),
    "tools": Row(
        "tools",
        offers_tools=True,
        readers=frozenset({"native", "text_calls", "code"}),
        guidance=GUIDANCE,
        coaches=True,
    ),
    "synthesis": Row(
        "synthesis",
        offers_tools=False,
        readers=frozenset(),
        guidance=SYNTHESIS_GUIDANCE,
        coaches=False,
    ),
}


def turn_kind(first_turn: FirstTurn, *, first: bool, fixes_a_file: bool) -> TurnKind:
    """The kind of a run's next turn. `first`: no model turn yet; `fixes_a_file`: the run has a
    target and may edit it (else there is no file a code block could change)."""
    if first_turn == "code" and first and fixes_a_file:
        return "code_first"
    return "tools"


def system_text(kind: TurnKind, extra: str = "") -> str:
    """The system message of a turn of `kind`: the front end's guidance first, the row's last."""
    extra = extra.strip()
    guidance = ROWS[kind].guidance
    return f"{extra}\n\n{guidance}" if extra else guidance
