"""Settings and helpers shared by the live `rune.fixThis` tests."""

from __future__ import annotations

from typing import Any, Literal

from rune_lsp.store.receipt import Receipt
from tests.e2e.editor import FakeEditor
from tests.e2e.wire import WireResult
from tests.live.llama import LlamaServer
from tests.live.workspace import CHECK_COMMAND, INSTRUCTION

Protocol = Literal["native", "text"]
#: A whole run: at most 8 model turns of a few seconds each, plus review round trips.
RUN_WITHIN = 600.0
REPEAT_BLOCK_AT = 3


def live_settings(
    llama: LlamaServer, protocol: Protocol, check_command: str = CHECK_COMMAND
) -> dict[str, Any]:
    """initializationOptions for a run against `llama`; `text` turns native tools off."""
    settings: dict[str, Any] = {
        "provider": "openai",
        "baseUrl": llama.base_url,
        "model": llama.install.alias,
        "requestTimeout": 120,
        "maxIterations": 8,
        "repeatWarnAt": 2,
        "repeatBlockAt": REPEAT_BLOCK_AT,
        "checkCommand": check_command,
        # The plumbing's invariants are under test here; candidate fixes (up to 4 requests and
        # scratch checks per proposal) are tested in tests/loop, tests/runner and tests/e2e, and
        # would multiply this tier's time on a 2-core machine.
        "candidates": 1,
    }
    if protocol == "text":
        settings["nativeTools"] = False
    return settings


async def fix_calc(editor: FakeEditor, instruction: str = INSTRUCTION) -> WireResult:
    editor.open("calc.py")
    return await editor.start_fix("calc.py", instruction=instruction).result(within=RUN_WITHIN)


def report(result: WireResult, receipt: Receipt, *, answer: bool = False) -> None:
    """What the model did, for the test log: a live run's details differ from run to run."""
    finishes = [turn.finish_reason for turn in receipt.turns]
    print(f"outcome {result.outcome} ({result.error}); turns {finishes}")
    print(f"calls {result.calls()}; edits {result.statuses()}; verified {result.verified}")
    if answer:
        print(f"answer:\n{result.answer}")


def assert_model_answered(receipt: Receipt) -> None:
    # A run whose first request timed out would pass every guarantee without testing any.
    assert receipt.turns, "the model never answered: is the server too slow?"
