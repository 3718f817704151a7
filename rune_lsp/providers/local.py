"""The `local` provider: the OpenAI-compatible wire to a llama-server that rune runs itself.

The server is provisioned on first use (`rune_lsp.localmodel`: build or reuse llama-server,
fetch and verify the model, start or join the shared server) in a worker thread, reporting
through `LocalHooks.progress`; cancelling the awaiting task cancels the provisioning. A request
that finds the server gone restarts it once and says so through `LocalHooks.notice`; a second
death fails the request with the server's log.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

import httpx

from rune_lsp.localmodel.errors import LocalModelError
from rune_lsp.localmodel.progress import Cancel, Progress, ProvisionCancelled, no_progress
from rune_lsp.localmodel.provision import LocalPlan, provision
from rune_lsp.localmodel.supervisor import Lease
from rune_lsp.loop.ports import ModelError
from rune_lsp.loop.state import Message, ModelCapabilities, ModelTurn, ToolSpec
from rune_lsp.providers.errors import ProviderUnreachableError
from rune_lsp.providers.openai import OnDelta, OpenAIModel
from rune_lsp.providers.transport import ProtocolPreferences
from rune_lsp.settings import Settings

_T = TypeVar("_T")


class LocalModelUnavailable(ModelError):
    """The local model server could not be provisioned, started or restarted."""


@dataclass(frozen=True)
class LocalHooks:
    """How provisioning talks to whoever waits for it (called from a worker thread)."""

    progress: Progress = no_progress
    notice: Callable[[str], None] = lambda message: None


class LocalModel(OpenAIModel):
    def __init__(
        self,
        settings: Settings,
        *,
        client: httpx.AsyncClient | None = None,
        stream: bool = True,
        protocols: ProtocolPreferences | None = None,
        hooks: LocalHooks | None = None,
    ) -> None:
        self.plan = LocalPlan.from_settings(settings)
        # The model is the plan's (the server serves it under its catalogue name); the URL is
        # known once the server runs.
        super().__init__(
            settings.model_copy(update={"model": self.plan.model.name}),
            client=client,
            stream=stream,
            protocols=protocols,
        )
        self._context_setting = self.plan.context  # what the server was started with
        self.hooks = hooks or LocalHooks()
        self._lease: Lease | None = None
        self._starting = asyncio.Lock()

    @property
    def started(self) -> bool:
        """A server is leased (it may still have died since: a request finds that out)."""
        return self._lease is not None

    async def ensure_started(self) -> Lease:
        """The lease on a running server, provisioning it on first use."""
        async with self._starting:
            if self._lease is None:
                lease = await _in_thread(
                    lambda cancel: provision(self.plan, progress=self.hooks.progress, cancel=cancel)
                )
                self._lease = lease
                self.endpoint = replace(self.endpoint, base_url=lease.base_url)
            return self._lease

    async def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        on_delta: OnDelta | None = None,
        temperature: float | None = None,
    ) -> ModelTurn:
        return await self._with_server(
            lambda: OpenAIModel.chat(
                self, messages, tools, on_delta=on_delta, temperature=temperature
            )
        )

    async def capabilities(self) -> ModelCapabilities:
        return await self._with_server(lambda: OpenAIModel.capabilities(self))

    async def list_models(self) -> tuple[str, ...]:
        return await self._with_server(lambda: OpenAIModel.list_models(self))

    async def _with_server(self, call: Callable[[], Awaitable[_T]]) -> _T:
        lease = await self.ensure_started()
        try:
            return await call()
        except ProviderUnreachableError:
            told = await _in_thread(lambda _cancel: lease.revive())
            if told is None:
                raise  # the server runs: this failure is not a crash
            self.endpoint = replace(self.endpoint, base_url=lease.base_url)
            self.hooks.notice(f"rune: {told}")
            return await call()

    async def aclose(self) -> None:
        await super().aclose()
        lease, self._lease = self._lease, None
        if lease is not None:
            await asyncio.to_thread(lease.release)


async def _in_thread(work: Callable[[Cancel], _T]) -> _T:
    """`work` in a worker thread; cancelling the awaiting task sets its Cancel and waits for it
    to unwind, so nothing half-made is left running."""
    cancel = Cancel()
    future = asyncio.get_running_loop().run_in_executor(None, work, cancel)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        cancel.set()
        with contextlib.suppress(Exception):
            await future
        raise
    except ProvisionCancelled as exc:
        raise asyncio.CancelledError(str(exc)) from exc
    except LocalModelError as exc:
        raise LocalModelUnavailable(str(exc)) from exc
