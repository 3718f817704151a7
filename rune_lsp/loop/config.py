"""The loop's own settings, validated when built so a bad budget never reaches a run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from rune_lsp.interface import (
    DEFAULT_FIRST_TURN,
    DEFAULT_TEMPERATURE,
    MAX_CANDIDATES,
    MAX_ITERATIONS,
    FirstTurn,
)
from rune_lsp.loop.context_budget import DEFAULT_OUTPUT_CAP

#: Smaller caps leave the model nothing useful to read in one call.
MIN_OUTPUT_CAP = 256


class LoopConfigError(ValueError):
    """A LoopConfig value outside what the runtime supports; the text names the field."""


@dataclass(frozen=True)
class LoopConfig:
    max_iterations: int = MAX_ITERATIONS
    repeat_warn_at: int = 2
    repeat_block_at: int = 3
    tool_output_cap: int = DEFAULT_OUTPUT_CAP
    system_prompt: str = ""  # the front end's extra guidance, placed before the fixed guidance
    # "code": a run with a target starts with a turn that offers no tools and is read for a
    # code block (answers/table.py, the `code_first` row); "tools": tools from the first turn on.
    first_turn: FirstTurn = DEFAULT_FIRST_TURN
    # With a checker: candidate fixes checked in a scratch copy before one is proposed
    # (loop/candidates.py); 1 proposes the first, unchecked.
    candidates: int = 1
    # The run's sampling temperature, from which a candidate's retry samples wider.
    temperature: float = DEFAULT_TEMPERATURE
    # Whether a candidate's check may run while the next candidate is generated (the runner
    # says so when the machine has the cores for both).
    overlap_checks: bool = False

    def __post_init__(self) -> None:
        validate_config(self)


def validate_config(config: LoopConfig) -> None:
    def whole(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    if not whole(config.max_iterations) or not 1 <= config.max_iterations <= MAX_ITERATIONS:
        raise LoopConfigError(
            f"max_iterations must be an integer from 1 to {MAX_ITERATIONS}, "
            f"got {config.max_iterations!r}"
        )
    if not whole(config.repeat_warn_at) or config.repeat_warn_at < 2:
        raise LoopConfigError(
            f"repeat_warn_at must be an integer of at least 2, got {config.repeat_warn_at!r}"
        )
    if not whole(config.repeat_block_at) or config.repeat_block_at <= config.repeat_warn_at:
        raise LoopConfigError(
            "repeat_block_at must be an integer greater than repeat_warn_at "
            f"({config.repeat_warn_at}), got {config.repeat_block_at!r}"
        )
    if not whole(config.tool_output_cap) or config.tool_output_cap < MIN_OUTPUT_CAP:
        raise LoopConfigError(
            f"tool_output_cap must be an integer of at least {MIN_OUTPUT_CAP}, "
            f"got {config.tool_output_cap!r}"
        )
    if config.first_turn not in get_args(FirstTurn):
        raise LoopConfigError(
            f"first_turn must be one of {', '.join(get_args(FirstTurn))}, got {config.first_turn!r}"
        )
    if not whole(config.candidates) or not 1 <= config.candidates <= MAX_CANDIDATES:
        raise LoopConfigError(
            f"candidates must be an integer from 1 to {MAX_CANDIDATES}, got {config.candidates!r}"
        )
    if not isinstance(config.temperature, int | float) or not 0 <= config.temperature <= 2:
        raise LoopConfigError(f"temperature must be from 0 to 2, got {config.temperature!r}")
    if not isinstance(config.system_prompt, str):
        raise LoopConfigError(
            f"system_prompt must be a string, got {type(config.system_prompt).__name__}"
        )
