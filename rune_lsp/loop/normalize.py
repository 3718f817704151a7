"""Raw calls from a model -> normalised `ToolCall`s plus the validated arguments or an error.

Models send arguments as objects, JSON strings or garbage, omit ids or reuse them. Every raw call
comes out of here as a `ToolCall` with a run-unique id and an object for arguments, paired with
either the arguments validated by the tool's pydantic model or a message telling the model what
to repair. Nothing here raises on bad model input.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from rune_lsp.loop.messages import RawToolCall, ToolCall
from rune_lsp.loop.ports import ToolDefinition
from rune_lsp.text_clip import shorten

#: Provider ids longer than this are replaced: they end up in every later request.
MAX_ID_LENGTH = 64
#: Calls one model turn may have run; the rest are paired as skipped, with the reason. Each
#: read is a thread hop and each change a review of its own, so a turn of thousands of calls
#: (or hundreds of write_file) would stall the server and the user; real turns need a few.
MAX_CALLS_PER_TURN = 16
_SHOWN_INPUT = 80


#: Built once: `json.dumps` with these options builds a new encoder per call, which is most of
#: its cost on the small values the loop encodes for every call.
_CANONICAL = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
)


def canonical_json(value: Any) -> str:
    """The one spelling of a JSON value that identical calls share."""
    return _CANONICAL.encode(value)


def call_signature(name: str, arguments: Any) -> str:
    """Identity of a call for dedup and both guards: name + canonical JSON arguments."""
    return f"{name}{canonical_json(arguments)}"


@dataclass(frozen=True)
class NormalizedCall:
    """One call ready for dispatch, or carrying the error that is its result."""

    call: ToolCall
    signature: str
    arguments: BaseModel | None = None
    error: str | None = None
    mutating: bool = False
    skipped: str | None = None  # not run, for this reason (past MAX_CALLS_PER_TURN)


@dataclass
class IdAllocator:
    """Hands out call ids unique within a run, keeping good provider ids."""

    used: set[str]
    next_number: int

    @classmethod
    def for_history(cls, used: Iterable[str], next_number: int) -> IdAllocator:
        return cls(used=set(used), next_number=next_number)

    def take(self, proposed: str | None) -> str:
        if proposed and len(proposed) <= MAX_ID_LENGTH and proposed not in self.used:
            self.used.add(proposed)
            return proposed
        while f"call_{self.next_number}" in self.used:
            self.next_number += 1
        fresh = f"call_{self.next_number}"
        self.next_number += 1
        self.used.add(fresh)
        return fresh


def normalize_calls(
    raw_calls: Sequence[RawToolCall],
    tools: Mapping[str, ToolDefinition],
    ids: IdAllocator,
) -> list[NormalizedCall]:
    """Every call, the first MAX_CALLS_PER_TURN to run and the rest marked skipped."""
    kept = [normalize_call(raw, tools, ids.take(raw.id)) for raw in raw_calls[:MAX_CALLS_PER_TURN]]
    reason = over_cap_note(len(raw_calls))
    return kept + [
        _over_cap(raw, ids.take(raw.id), reason) for raw in raw_calls[MAX_CALLS_PER_TURN:]
    ]


def over_cap_note(count: int) -> str:
    return (
        f"Not run (skipped: at most {MAX_CALLS_PER_TURN} tool calls run per turn; this turn "
        f"made {count}). Make the calls you still need in your next turn."
    )


def _over_cap(raw: RawToolCall, call_id: str, reason: str) -> NormalizedCall:
    """A call paired as skipped: kept as sent, not validated (it will not run) and without a
    signature (no guard or dedup looks at it)."""
    name = raw.name.strip() if isinstance(raw.name, str) else ""
    arguments, _ = _parse_arguments(raw.arguments)
    call = ToolCall(id=call_id, name=name, arguments=arguments or {})
    return NormalizedCall(call, "", skipped=reason)


def normalize_call(
    raw: RawToolCall, tools: Mapping[str, ToolDefinition], call_id: str
) -> NormalizedCall:
    name = raw.name.strip() if isinstance(raw.name, str) else ""
    arguments, argument_error = _parse_arguments(raw.arguments)
    call = ToolCall(id=call_id, name=name, arguments=arguments or {})
    # A name that is not a string keeps its own spelling here, so two different ones differ.
    shown_name = name if isinstance(raw.name, str) else canonical_json(raw.name)
    signature = call_signature(shown_name, arguments if arguments is not None else raw.arguments)

    if not isinstance(raw.name, str) and raw.name is not None:
        return NormalizedCall(call, signature, error=bad_name_message(raw.name, tools))
    tool = tools.get(name)
    if tool is None:
        return NormalizedCall(call, signature, error=unknown_tool_message(name, tools))
    if argument_error is not None or arguments is None:
        problem = argument_error or "arguments are missing"
        return NormalizedCall(
            call, signature, error=f"Error: the arguments of {name} are invalid: {problem}."
        )
    validated, validation_error = _validate(name, tool.arguments_model, arguments)
    return NormalizedCall(
        call,
        signature,
        arguments=validated,
        error=validation_error,
        mutating=tool.spec.mutating,
    )


def unknown_tool_message(name: str, tools: Mapping[str, ToolDefinition]) -> str:
    if not name:
        return _name_problem("the tool call has no tool name", tools)
    problem = f"unknown tool '{shorten(name, _SHOWN_INPUT)}'"
    return _name_problem(problem, tools)


def bad_name_message(name: Any, tools: Mapping[str, ToolDefinition]) -> str:
    shown = shorten(canonical_json(name), _SHOWN_INPUT)
    problem = f"the tool name must be a string, got {_json_type(name)} ({shown})"
    return _name_problem(problem, tools)


def _name_problem(problem: str, tools: Mapping[str, ToolDefinition]) -> str:
    known = ", ".join(sorted(tools)) or "(none)"
    return f"Error: {problem}. Known tools: {known}. Call one of them by its exact name."


def _parse_arguments(raw: Any) -> tuple[dict[str, Any] | None, str | None]:
    """(object, None) on success, (None, problem) otherwise."""
    if raw is None:
        return {}, None
    if isinstance(raw, Mapping):
        return {str(key): value for key, value in raw.items()}, None
    if isinstance(raw, str):
        text = raw.strip()
        if not text:
            return {}, None
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError as exc:
            return None, (
                f"they are not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}): "
                f"{shorten(text, _SHOWN_INPUT)}. Send the arguments as one JSON object (a quote "
                'inside a string is written \\")'
            )
        if isinstance(parsed, dict):
            return {str(key): value for key, value in parsed.items()}, None
        return None, f"they must be a JSON object, got {_json_type(parsed)}"
    return None, f"they must be a JSON object, got {_json_type(raw)}"


def _validate(
    name: str, model: type[BaseModel], arguments: dict[str, Any]
) -> tuple[BaseModel | None, str | None]:
    try:
        return model.model_validate(arguments), None
    except ValidationError as exc:
        return None, format_validation_error(name, exc)
    except Exception as exc:  # a validator that raised something pydantic does not wrap
        return None, f"Error: the arguments of {name} could not be validated: {exc}."


def format_validation_error(name: str, exc: ValidationError) -> str:
    """`field: problem` lines a model can act on, without pydantic's URLs."""
    lines = []
    for error in exc.errors(include_url=False):
        field = ".".join(str(part) for part in error["loc"]) or "(arguments)"
        problem = error["msg"]
        if error["type"] != "missing":
            problem += f" (got {shorten(repr(error.get('input')), _SHOWN_INPUT)})"
        lines.append(f"- {field}: {problem}")
    return (
        f"Error: invalid arguments for {name}:\n"
        + "\n".join(lines)
        + (f"\nFix these and call {name} again.")
    )


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    if value is None:
        return "null"
    return type(value).__name__
