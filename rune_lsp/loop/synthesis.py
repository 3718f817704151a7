"""What a run a guard stopped answers with (the repeat guard, loop/runtime.py's docstring): one
tool-less call for the model's own words while budget remains, then the runtime's account of
which calls ran and which were skipped, so the answer never claims work that was not done.
"""

from __future__ import annotations

from rune_lsp.answers import ROWS
from rune_lsp.loop.messages import Message, describe_call
from rune_lsp.loop.model_call import ModelCalls
from rune_lsp.loop.prompts import FINAL_SYNTHESIS_INSTRUCTION
from rune_lsp.loop.state import RunState
from rune_lsp.loop.stop import Stop


async def synthesized(model_calls: ModelCalls, state: RunState, error: str) -> tuple[str, str]:
    """The answer, and the run's error (which says so when the synthesis call failed too)."""
    summary = calls_summary(state)
    text = ""
    if state.iterations_used < state.iteration_budget:
        instruction = Message(role="user", content=FINAL_SYNTHESIS_INSTRUCTION)
        try:
            turn = await model_calls.ask(ROWS["synthesis"], extra=(instruction,))
        except Stop as failure:
            error = f"{error}; the final synthesis failed: {failure.error}"
        else:
            text = turn.text.strip()  # no reader listens: the words are the answer
            state.messages.extend([instruction, Message(role="assistant", content=text)])
    answer = f"{text}\n\n{summary}" if text else summary
    return answer, error


def calls_summary(state: RunState) -> str:
    """`Tool calls executed: …; skipped: …`, from the run's call log."""
    calls = {call.id: call for message in state.messages for call in message.tool_calls}
    executed: list[str] = []
    skipped: list[str] = []
    for record in state.call_log:
        call = calls.get(record.call_id)
        label = describe_call(call) if call is not None else record.name
        if record.status == "skipped":
            skipped.append(label)
        else:
            executed.append(label if record.status == "ok" else f"{label} ({record.status})")
    return (
        f"Tool calls executed: {', '.join(executed) or 'none'}; "
        f"skipped: {', '.join(skipped) or 'none'}."
    )
