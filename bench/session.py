"""rune-lsp as an editor sees it: a Neovim-like client over stdio, talking to a model double.

Neovim advertises no change-annotation support, so pending edits would go through review mode
B; the bench only uses read-only tools, so no edit is ever proposed.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest_lsp
from lsprotocol import converters

from bench.lsp_client import LspClient, server_env

REPO = Path(__file__).resolve().parent.parent
RUNE_ARGV = (sys.executable, "-m", "rune_lsp")


def neovim_capabilities() -> Any:
    capabilities = pytest_lsp.client_capabilities("neovim")
    return converters.get_converter().unstructure(capabilities)


def initialize_params(root: Path, options: Any = None) -> dict[str, Any]:
    params: dict[str, Any] = {
        "processId": None,
        "clientInfo": {"name": "rune-bench"},
        "rootUri": root.as_uri(),
        "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
        "capabilities": neovim_capabilities(),
    }
    if options is not None:
        params["initializationOptions"] = options
    return params


class Workspace:
    """A throw-away workspace folder, with rune's state dir inside it."""

    def __init__(self, prefix: str = "rune-bench-") -> None:
        self.root = Path(tempfile.mkdtemp(prefix=prefix)).resolve()
        self.state_dir = self.root / ".rune-state"
        self.logs = self.root / ".logs"
        self.logs.mkdir()

    def write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def uri(self, name: str) -> str:
        return (self.root / name).as_uri()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


class RuneSession:
    """One rune-lsp process, initialized with `settings` (camelCase keys, section `rune`)."""

    def __init__(self, client: LspClient, workspace: Workspace, settings: dict[str, Any]) -> None:
        self.client = client
        self.workspace = workspace
        self.settings = settings
        self._versions: dict[str, int] = {}

    @classmethod
    async def start(
        cls,
        workspace: Workspace,
        settings: dict[str, Any],
        *,
        log_name: str = "rune.log",
        extra_argv: tuple[str, ...] = (),
    ) -> RuneSession:
        def configuration(params: Any) -> list[Any]:
            items = params.get("items", []) if isinstance(params, dict) else []
            return [dict(settings) for _ in items]

        client = await LspClient.spawn(
            (*RUNE_ARGV, *extra_argv),
            cwd=REPO,
            env=server_env(),
            stderr_path=workspace.logs / log_name,
            handlers={
                "workspace/configuration": configuration,
                "workspace/applyEdit": lambda params: {"applied": False},
            },
        )
        session = cls(client, workspace, settings)
        await client.request("initialize", initialize_params(workspace.root, {"rune": settings}))
        client.notify("initialized", {})
        return session

    @property
    def pid(self) -> int:
        return self.client.pid

    def open(self, name: str, text: str | None = None) -> str:
        """didOpen `name` (written to disk too, so disk and buffer agree); returns its URI."""
        if text is None:
            text = (self.workspace.root / name).read_text()
        else:
            self.workspace.write(name, text)
        uri = self.workspace.uri(name)
        self._versions[uri] = 1
        self.client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
        )
        return uri

    def fix_params(self, name: str, instruction: str = "look at the code") -> dict[str, Any]:
        argument = {
            "uri": self.workspace.uri(name),
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}},
            "instruction": instruction,
        }
        return {"command": "rune.fixThis", "arguments": [argument]}

    async def fix(self, name: str, instruction: str = "look at the code") -> Any:
        return await self.client.request(
            "workspace/executeCommand", self.fix_params(name, instruction)
        )

    def code_action_params(self, name: str) -> dict[str, Any]:
        return {
            "textDocument": {"uri": self.workspace.uri(name)},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}},
            "context": {"diagnostics": []},
        }

    async def close(self) -> None:
        await self.client.close()


def bench_settings(base_url: str, workspace: Workspace, **extra: Any) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "provider": "ollama",
        "baseUrl": base_url,
        "model": "qwen3:14b",
        "maxIterations": 8,
        "stateDir": str(workspace.state_dir),
    }
    settings.update(extra)
    return settings
