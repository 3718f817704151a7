"""A receipt as Markdown, for people: what happened, what changed, what it cost, did it pass.

Everything in a receipt came from a model or a tool, so no text of it may break the page's
structure: code spans and fences are sized to outlast any backticks inside, table cells have
their pipes and newlines escaped, and the free-form answer sits in a block quote, which contains
even an unclosed fence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rune_lsp.loop.records import HunkRecord
from rune_lsp.store.receipt import CheckRecord, Receipt
from rune_lsp.text_clip import shorten

_CELL_TEXT = 80


def render_receipt(receipt: Receipt) -> str:
    sections = [
        _summary(receipt),
        _quoted("Task", receipt.task),
        _quoted("Answer", receipt.result.answer or "(no answer)"),
        _edits(receipt),
        _calls(receipt),
        _commands(receipt),
        _turns(receipt),
        _check(receipt.check),
        _notes(receipt.notes),
    ]
    return "\n\n".join(section for section in sections if section) + "\n"


def _summary(receipt: Receipt) -> str:
    result = receipt.result
    seconds = (receipt.ended_at - receipt.started_at).total_seconds()
    lines = [
        f"# Rune run {_code(receipt.run_id)}",
        "",
        f"- **Outcome:** {result.outcome}",
        f"- **Verified:** {_verified(result.verified)}",
    ]
    if result.candidates is not None:
        found = result.candidates
        lines.append(
            f"- **Candidate fixes:** {found.tried} tried, {found.checks_run} checked in a "
            f"scratch copy, {found.passed} passed"
        )
    if result.error:
        lines.append(f"- **Error:** {_inline(result.error)}")
    if receipt.document:
        lines.append(f"- **Document:** {_code(receipt.document)}")
    lines += [
        f"- **Model:** {_code(receipt.model)} via {receipt.provider} at {_code(receipt.base_url)}",
        f"- **Iterations:** {result.iterations_used}/{result.iteration_budget}",
        f"- **Tokens:** {_count(receipt.prompt_tokens)} prompt{_cached(receipt.cached_tokens)}, "
        f"{_count(receipt.completion_tokens)} completion",
        f"- **Started:** {receipt.started_at.isoformat(timespec='seconds')}, took {seconds:.1f} s",
    ]
    return "\n".join(lines)


def _cached(cached: int | None) -> str:
    return "" if cached is None else f" ({cached} from the server's prompt cache)"


def _verified(verified: bool | None) -> str:
    if verified is None:
        return "no check ran"
    return "yes, the check passed" if verified else "no, the check failed"


def _quoted(title: str, text: str) -> str:
    if not text:
        return ""
    body = "\n".join(f"> {line}" if line else ">" for line in text.splitlines())
    return f"## {title}\n\n{body}"


def _edits(receipt: Receipt) -> str:
    if not receipt.edits:
        return ""
    parts = [f"## Edits ({len(receipt.edits)})"]
    for number, edit in enumerate(receipt.edits, start=1):
        block = [
            f"### {number}. {_code(edit.path)}: {edit.status}",
            "",
            f"{edit.tool}, {edit.edit_id}",
        ]
        if edit.detail:
            block += ["", _inline(edit.detail)]
        if edit.reason:
            block += ["", f"The user's reason: {_inline(edit.reason)}"]
        if edit.hunks:
            block += ["", *(_hunk_line(hunk) for hunk in edit.hunks)]
        if edit.diff:
            block += ["", _fenced(edit.diff, "diff")]
        parts.append("\n".join(block))
    return "\n\n".join(parts)


def _hunk_line(hunk: HunkRecord) -> str:
    said = f": {_inline(hunk.reason)}" if hunk.reason else ""
    return f"- hunk {hunk.hunk_id}: {hunk.status}{said}"


def _calls(receipt: Receipt) -> str:
    if not receipt.tool_calls:
        return ""
    rows = [
        f"## Tool calls ({len(receipt.tool_calls)})",
        "",
        "| step | tool | arguments | status | ms | result |",
        "|---:|---|---|---|---:|---|",
    ]
    for call in receipt.tool_calls:
        cells = (
            str(call.iteration),
            call.name,
            _cell_code(call.arguments),
            call.status,
            f"{call.duration_ms:.0f}",
            _cell(call.digest),
        )
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _commands(receipt: Receipt) -> str:
    """Each command whole, with the output the model read (the table holds only its head)."""
    blocks = [
        f"### Step {call.iteration}: run_command, {call.status}\n\n"
        + _fenced(call.command, "sh")
        + "\n\n"
        + _fenced(call.output or "(no output)", "text")
        for call in receipt.tool_calls
        if call.command is not None
    ]
    return "\n\n".join(["## Commands", *blocks]) if blocks else ""


def _turns(receipt: Receipt) -> str:
    if not receipt.turns:
        return ""
    rows = [
        "## Model turns",
        "",
        "| step | prompt tokens | cached | completion tokens | finish | ms |",
        "|---:|---:|---:|---:|---|---:|",
    ]
    for turn in receipt.turns:
        cells = (
            str(turn.iteration),
            _count(turn.prompt_tokens),
            _count(turn.cached_tokens),
            _count(turn.completion_tokens),
            _cell(turn.finish_reason or ""),
            f"{turn.duration_ms:.0f}",
        )
        rows.append("| " + " | ".join(cells) + " |")
    rows.append(
        f"| total | {_count(receipt.prompt_tokens)} | {_count(receipt.cached_tokens)} "
        f"| {_count(receipt.completion_tokens)} | | |"
    )
    return "\n".join(rows)


def _check(check: CheckRecord | None) -> str:
    if check is None:
        return ""
    if check.timed_out:
        verdict = "timed out"
    elif check.exit_code is None:
        verdict = "did not run to an exit"
    else:
        verdict = f"exit code {check.exit_code} ({'passed' if check.passed else 'failed'})"
    lines = [
        "## Check",
        "",
        f"{_code(check.command)}: {verdict} after {check.duration_ms / 1000:.1f} s",
    ]
    for title, text in (("stdout", check.stdout_tail), ("stderr", check.stderr_tail)):
        if text:
            lines += ["", f"{title} (end):", "", _fenced(text, "text")]
    return "\n".join(lines)


def _notes(notes: Iterable[str]) -> str:
    items = [f"- {_inline(note)}" for note in notes]
    return "## Notes\n\n" + "\n".join(items) if items else ""


# --- escaping --------------------------------------------------------------------------------


def _longest_run(text: str, char: str) -> int:
    runs = re.findall(f"{re.escape(char)}+", text)
    return max((len(run) for run in runs), default=0)


def _code(text: str) -> str:
    """An inline code span that no backtick inside can close early."""
    ticks = "`" * (_longest_run(text, "`") + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _fenced(text: str, language: str) -> str:
    fence = "`" * max(3, _longest_run(text, "`") + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{fence}{language}\n{body}{fence}"


def _inline(text: str) -> str:
    """Text on one line (list items and headings end at a newline)."""
    return " ".join(text.split())


def _shorten(text: str) -> str:
    return shorten(_inline(text), _CELL_TEXT, marker="…")


def _cell(text: str) -> str:
    return _shorten(text).replace("|", "\\|")


def _cell_code(text: str) -> str:
    # GFM splits cells on `|` even inside code spans, so it is escaped there too.
    return _code(_shorten(text)).replace("|", "\\|") if text else ""


def _count(value: int | None) -> str:
    return "?" if value is None else str(value)
