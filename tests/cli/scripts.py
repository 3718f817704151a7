"""Model turns the CLI tests script: edits to the workspace's `app.py`, then an answer."""

from __future__ import annotations

from tests.doubles.model_double import Call, Reply

FIX_ADD = Call("edit_file", {"path": "app.py", "old_text": "a - b", "new_text": "a * 1 + b"})
FIX_SUB = Call("edit_file", {"path": "app.py", "old_text": "a + b", "new_text": "a - b"})
ADD_FIXED = "def add(a, b):\n    return a * 1 + b\n\n\ndef sub(a, b):\n    return a + b\n"

ONE_EDIT = (
    Reply(text="The sign is wrong.", tool_calls=(FIX_ADD,)),
    Reply(text="Fixed `add`."),
)
TWO_EDITS = (
    Reply(text="Both signs are wrong.", tool_calls=(FIX_ADD, FIX_SUB)),
    Reply(text="Done with both."),
)
