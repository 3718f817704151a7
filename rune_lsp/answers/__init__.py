"""Reading a model's turn: what its answer proposes (calls, code blocks) and what it is told.

One entry point, `read_turn` (`turn.py`); one table (`table.py`) that says per kind of turn what
the model is offered, which readers listen and its system message; one reader per answer
format, each with its prompts: calls (`calls/`: written as text, the text protocol, the
corrective turns) and code blocks (`code/`, its prompts in `code_prompts.py`). It knows nothing
of the loop: the loop (`loop/runtime.py`) asks, reads the turn here, then dispatches the calls,
adds a note or finishes.
"""

from rune_lsp.answers.table import ROWS, Row, TurnKind, system_text, turn_kind
from rune_lsp.answers.turn import Answer, Fetch, TurnReading, read_turn

__all__ = [
    "ROWS",
    "Answer",
    "Fetch",
    "Row",
    "TurnKind",
    "TurnReading",
    "read_turn",
    "system_text",
    "turn_kind",
]
