from __future__ import annotations

import re

from store_samples import CHECK, DIFF, receipt

from rune_lsp.store.markdown import render_receipt
from rune_lsp.store.receipt import Receipt, ReceiptEdit


def test_completed_run_renders_every_part() -> None:
    text = render_receipt(receipt("completed"))
    assert text.startswith("# Rune run `run-1`\n")
    assert "- **Outcome:** completed" in text
    assert "- **Verified:** yes, the check passed" in text
    assert "- **Model:** `qwen3:14b` via openai at `http://127.0.0.1:8080/v1`" in text
    assert "- **Iterations:** 2/8" in text
    assert "- **Tokens:** 1900 prompt (880 from the server's prompt cache), 100 completion" in text
    assert "took 42.0 s" in text
    assert "## Task\n\n> Fix add() so the tests pass" in text
    assert "## Answer\n\n> Fixed add(): it subtracted instead of adding." in text
    assert f"### 1. `src/app.py`: applied\n\nedit_file, edit-1\n\n```diff\n{DIFF}```" in text
    assert '| 1 | read_file | `{"path":"src/app.py"}` | ok | 4 | def add(a, b): return a - b |' in (
        text
    )
    assert "| 1 | 900 | ? | 60 |" in text and "| 2 | 1000 | 880 | 40 | stop |" in text
    assert "| total | 1900 | 880 | 100 | | |" in text
    assert f"`{CHECK.command}`: exit code 0 (passed) after 0.8 s" in text
    assert "stdout (end):\n\n```text\n3 passed in 0.02s\n```" in text
    assert "## Notes" not in text


def test_failed_run_shows_error_and_no_check() -> None:
    text = render_receipt(receipt("failed"))
    assert "- **Outcome:** failed" in text
    assert "- **Error:** the run ended failed" in text
    assert "- **Verified:** no check ran" in text
    assert "## Check" not in text


def test_timed_out_check_and_failed_verification() -> None:
    base = receipt("completed")
    check = CHECK.model_copy(update={"exit_code": None, "timed_out": True, "stderr_tail": "boom"})
    result = base.result.model_copy(update={"verified": False})
    text = render_receipt(base.model_copy(update={"check": check, "result": result}))
    assert "- **Verified:** no, the check failed" in text
    assert ": timed out after" in text
    assert "stderr (end):\n\n```text\nboom\n```" in text


def test_model_text_cannot_break_the_page() -> None:
    base = receipt("completed")
    nasty_diff = "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-```py\n+````py\n"
    edit = ReceiptEdit(
        edit_id="e", tool="edit_file", path="weird`name.md", status="stale", diff=nasty_diff
    )
    call = base.tool_calls[0].model_copy(
        update={"arguments": '{"pattern": "a|b"}', "digest": "x | y\nz" + "w" * 200}
    )
    answer = "# Heading from the model\n```python\nunclosed fence"
    patched: Receipt = base.model_copy(
        update={
            "edits": (edit,),
            "tool_calls": (call,),
            "result": base.result.model_copy(update={"answer": answer}),
        }
    )
    text = render_receipt(patched)
    # A fence longer than any backtick run in the diff, closed after it.
    assert f"`````diff\n{nasty_diff}`````" in text
    assert "``weird`name.md``" in text
    # The answer is quoted line by line, so its heading and fence stay inside the quote.
    assert "> # Heading from the model\n> ```python\n> unclosed fence" in text
    row = next(line for line in text.splitlines() if line.startswith("| 1 | read_file"))
    assert '`{"pattern": "a\\|b"}`' in row and "x \\| y z" in row
    assert row.endswith("… |") and len(row) < 200
    assert len(re.findall(r"(?<!\\)\|", row)) == 7  # six cells, no extra columns


def test_notes_and_unknown_tokens() -> None:
    base = receipt("incomplete")
    unknown = {"prompt_tokens": None, "cached_tokens": None}
    turns = tuple(t.model_copy(update=unknown) for t in base.turns)
    text = render_receipt(base.model_copy(update={"turns": turns, "notes": ("answer clipped",)}))
    assert "- **Tokens:** ? prompt, 100 completion" in text
    assert "## Notes\n\n- answer clipped" in text


def test_run_without_calls_or_edits() -> None:
    base = receipt("cancelled")
    empty = base.model_copy(
        update={
            "tool_calls": (),
            "edits": (),
            "turns": (),
            "task": "",
            "result": base.result.model_copy(update={"answer": "", "edits": ()}),
        }
    )
    text = render_receipt(empty)
    assert "## Answer\n\n> (no answer)" in text
    for absent in ("## Task", "## Edits", "## Tool calls", "## Model turns"):
        assert absent not in text
