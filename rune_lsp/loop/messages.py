"""What the model sees and says: chat messages, tool calls (as a provider parsed them and as the
loop normalised them), one model turn with its token counts and why it was cut, the model's
capabilities and the tools it is offered.

Providers map these onto their wire formats; the run's state (loop/state.py) keeps the history.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from rune_lsp.loop.frozen import Frozen
from rune_lsp.text_clip import shorten

Role = Literal["system", "user", "assistant", "tool"]


class ToolCall(Frozen):
    """A normalised call: an id the runtime guarantees, arguments always an object."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Message(Frozen):
    """One provider-agnostic chat message; providers map it onto their wire format."""

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None  # role == "tool": the call this result answers
    name: str | None = None  # role == "tool": the tool's name (Ollama wants it)


class RawToolCall(Frozen):
    """A call as a provider parsed it, before the loop normalises it.

    `name` and `arguments` are whatever came over the wire: a name that is not a string (a
    number, a list) or arguments that are garbage make the call invalid, in the loop, which
    pairs it with a result like any malformed call; the turn's other calls still run.
    """

    id: str | None = None
    name: Any = ""
    arguments: Any = None


class Usage(Frozen):
    """Token counts as the server reported them; None where it did not say.

    A turn the provider cut itself (`TurnCut` `size` or `repetition`) has none: the server
    sends its counts in the stream's last chunk, which a closed stream never receives.
    """

    prompt_tokens: int | None = None  # the whole prompt, cached part included
    completion_tokens: int | None = None
    # Of the prompt, tokens the server reused from its prompt cache (None: it did not say).
    cached_tokens: int | None = None


#: Why an answer ended before the model finished it: the server's output limit (`length`),
#: the runtime's per-turn size cap (`size`), or a degenerate stream repeating itself.
CutReason = Literal["length", "size", "repetition"]


class TurnCut(Frozen):
    """An answer that was cut; the loop tells the model so on its next turn."""

    reason: CutReason
    chars: int  # characters of text, thinking and arguments received when it ended


class ModelTurn(Frozen):
    """What one model call returned."""

    text: str = ""  # visible answer text (thinking excluded)
    tool_calls: tuple[RawToolCall, ...] = ()
    thinking: str | None = None
    usage: Usage = Usage()
    finish_reason: str | None = None
    cut: TurnCut | None = None


class ModelCapabilities(Frozen):
    native_tools: bool = True
    thinking: bool = False
    context_length: int | None = None  # tokens the model was trained for; None = unknown
    # Whether the loop may move a run from native tools to the text protocol when the model
    # answers in prose (False when a setting forced the protocol or it is already settled).
    adaptive_protocol: bool = False


class ToolSpec(Frozen):
    """A tool as described to the model (its JSON schema comes from a pydantic model)."""

    name: str
    description: str
    parameters: dict[str, Any]
    mutating: bool = False


def describe_call(call: ToolCall) -> str:
    """A short human label for progress: `read_file src/app.py`."""
    args = call.arguments
    for key in ("path", "command", "pattern"):
        value = args.get(key)
        if isinstance(value, str) and value:
            shown = shorten(value, 60)
            return f"{call.name} {shown}"
    return call.name
