"""The names and bounds the public interface fixes (docs/interface.md), each defined once.

This module imports nothing but `typing` (loaded before any of rune_lsp), so the start-up path
(server/fix.py, server/edits.py answer before pydantic is loaded), review/ and the loop can all
use it.
"""

from typing import Literal

#: `workspace/executeCommand` commands (docs/interface.md#commands).
FIX_THIS = "rune.fixThis"
CANCEL = "rune.cancel"
RESUME = "rune.resume"
ACCEPT_EDIT = "rune.acceptEdit"
REJECT_EDIT = "rune.rejectEdit"
ACCEPT_HUNK = "rune.acceptHunk"
REJECT_HUNK = "rune.rejectHunk"
SHOW_DIFF = "rune.showDiff"
KEEP_LINES = "rune.keepLines"
SETUP_LOCAL = "rune.setupLocal"

#: Server -> client request asking to run a command, for a client that advertises the
#: experimental capability `runeCommandApproval` (docs/interface.md#commands-the-agent-runs).
APPROVE_COMMAND = "rune/approveCommand"

#: Server -> client notification with a piece of the model's visible answer as it streams, for
#: a client that advertises the experimental capability `runeModelText`
#: (docs/interface.md#progress).
MODEL_TEXT = "rune/modelText"

#: The `source` of rune's own diagnostics: the pending edits of review mode B.
DIAGNOSTIC_SOURCE = "rune"

#: Model turns per run at most: the upper bound of `maxIterations` (docs/interface.md#settings).
MAX_ITERATIONS = 8
#: Candidate fixes checked before one is proposed, at most: the upper bound of `candidates`.
MAX_CANDIDATES = 8
#: The default sampling temperature (`temperature`): low for code edits, near-deterministic,
#: yet not greedy decoding, which makes small models loop on one sentence (Qwen's own advice
#: is never to use temperature 0).
DEFAULT_TEMPERATURE = 0.2
#: How a Fix this starts (the `firstTurn` setting, docs/interface.md#settings): `code` offers no
#: tools on the first turn and asks for the corrected function in a block; `tools` offers them.
FirstTurn = Literal["code", "tools"]
#: The default of `firstTurn`, for the settings and the loop alike.
DEFAULT_FIRST_TURN: FirstTurn = "code"
