"""How a finished run is shown: the answer and outcome for people, or the JSON result."""

from __future__ import annotations

import json

from rune_lsp.loop.state import RunResult


def result_json(result: RunResult) -> str:
    """The run result of CONTRACT section 6, camelCase keys."""
    return json.dumps(result.model_dump(mode="json", by_alias=True), indent=2)


def render_result(result: RunResult) -> str:
    lines: list[str] = []
    if result.answer.strip():
        lines += [result.answer.rstrip(), ""]
    outcome = f"outcome: {result.outcome} (step {result.iterations_used}/{result.iteration_budget})"
    if result.error:
        outcome += f": {result.error}"
    lines.append(outcome)
    for edit in result.edits:
        lines.append(f"  {edit.status:<8} {edit.tool} {edit.path}")
    if not result.edits:
        # Said outright: a completed run without an edit changed nothing, and no check ran.
        lines.append("edits: none proposed, no file changed")
    if result.verified is not None:
        lines.append(f"verified: {'yes' if result.verified else 'no'}")
    if result.receipt:
        lines.append(f"receipt: {result.receipt}")
    return "\n".join(lines) + "\n"
