"""Control characters made visible: the one way text someone else wrote is shown.

The model's words (a command it wants run, a diff of its edit, its reason, its answer) and
anything a server or a file sends back can hold terminal control sequences. Printed raw, they
rewrite what the user sees: `ESC[2K ESC[1G` erased a pending command's tail so that `$ python3
-m unittest -q` stood where `...; touch ../outside/PWNED` ran, `ESC[1A` erased a diff line, an
OSC 52 sequence wrote the clipboard (issue 25, item 1). So every printer of such text (the
terminal's review, progress and result; the editor's Run/Deny prompt) passes it through
`visible` first, and only its own styling (the diff's colours) stays a control sequence.

Each C0 control but tab and newline, DEL, each C1 control, a carriage return not followed by
a newline, and the Unicode controls that reorder or hide text (bidirectional overrides and
isolates, line and paragraph separators, zero-width and byte-order marks) are shown as a
Python-style escape: `\\x1b`, `\\x9b`, `\\u202e`. One rendering for all, plain ASCII, so it looks
the same in every terminal and font; a literal backslash the model wrote stays as it is (both
are inert text).

Standard library only: the loop, the server and the CLI may all use it.
"""

from __future__ import annotations

import re

#: The Unicode format characters that reorder or hide what a line shows ("Trojan Source",
#: CVE-2021-42574): bidirectional embeddings, overrides and isolates, separators, zero-width.
_UNICODE_CONTROLS = (
    *range(0x200B, 0x2010),  # zero-width space/non-joiner/joiner, LRM, RLM
    *range(0x2028, 0x202F),  # line and paragraph separators, LRE RLE PDF LRO RLO
    *range(0x2066, 0x206A),  # LRI RLI FSI PDI
    0xFEFF,  # zero-width no-break space (byte-order mark)
)

_TABLE: dict[int, str] = {
    **{code: f"\\x{code:02x}" for code in range(0x20) if code not in (0x09, 0x0A, 0x0D)},
    **{code: f"\\x{code:02x}" for code in range(0x7F, 0xA0)},  # DEL and the C1 controls
    **{code: f"\\u{code:04x}" for code in _UNICODE_CONTROLS},
}

#: A carriage return that ends no line (`\r\n` does): it sends the cursor back over the row.
_LONE_CR = re.compile(r"\r(?!\n)")


def visible(text: str) -> str:
    """`text` with every control character that could move the cursor, erase, recolour or
    reorder what a terminal or an editor shows replaced by its escape (`ESC` -> `\\x1b`).
    Tab, newline and `\\r\\n` stay."""
    shown = text.translate(_TABLE)
    return _LONE_CR.sub(r"\\x0d", shown) if "\r" in shown else shown
