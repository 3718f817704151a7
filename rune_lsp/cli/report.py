"""How a finished run is shown: the answer and outcome for people, or the JSON result."""

from __future__ import annotations

import json

from rune_lsp.controls import visible
from rune_lsp.loop.records import RunResult
from rune_lsp.runner.summary import outcome_words


def result_json(result: RunResult) -> str:
    """The run result (docs/interface.md#run-result), camelCase keys; JSON escapes every
    control character (and every non-ASCII one) itself."""
    return json.dumps(result.model_dump(mode="json", by_alias=True), indent=2)


def render_result(result: RunResult) -> str:
    """The result for a person: the model's answer, the error and the edits' paths are the
    model's (or a server's) words, so control characters are shown, never obeyed."""
    lines: list[str] = []
    if result.answer.strip():
        lines += [result.answer.rstrip(), ""]
    steps = f"step {result.iterations_used}/{result.iteration_budget}"
    outcome = f"outcome: {outcome_words(result)} ({steps})"
    if result.error:
        outcome += f": {result.error}"
    lines.append(outcome)
    for edit in result.edits:
        lines.append(f"  {edit.status:<8} {edit.tool} {edit.path}")
    if result.verified is not None:
        lines.append(f"verified: {'yes' if result.verified else 'no'}")
    if result.receipt:  # a run that ran: its conversation is kept for `--continue`
        lines.append(f"receipt: {result.receipt}")
        lines.append(f"run: {result.run_id}")
    return visible("\n".join(lines)) + "\n"
