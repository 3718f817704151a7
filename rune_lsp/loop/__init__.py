"""The agent runtime: a model and a tool executor in, a typed run outcome out.

It imports nothing from the server, the providers, the tools or any LSP library; front ends
drive it through `AgentLoop` and the types in `state` and `ports`.
"""

from rune_lsp.loop.config import LoopConfig, LoopConfigError
from rune_lsp.loop.events import EventSink
from rune_lsp.loop.ports import Model, ModelError, ToolExecutor, ToolsUnsupportedError
from rune_lsp.loop.runtime import AgentLoop, ResumeError

__all__ = [
    "AgentLoop",
    "EventSink",
    "LoopConfig",
    "LoopConfigError",
    "Model",
    "ModelError",
    "ResumeError",
    "ToolExecutor",
    "ToolsUnsupportedError",
]
