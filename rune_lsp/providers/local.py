"""The `local` provider: the OpenAI-compatible wire to a llama-server that rune runs itself.

The server is provisioned on first use (`rune_lsp.localmodel`: build or reuse llama-server,
fetch and verify the model, start or join the shared server) in a worker thread, reporting
through `LocalHooks.progress`; cancelling the awaiting task cancels the provisioning. A request
that finds the server gone restarts it once and says so through `LocalHooks.notice`; a second
death fails the request with the server's log and gives the lease back, so the next start
(a run, `rune.setupLocal`) provisions anew: a lease is kept only while its server answers.
A server that could not be stopped when the lease is given back is told through `notice` too.
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
from rune_lsp.loop.messages import Message, ModelCapabilities, ModelTurn, ToolSpec
from rune_lsp.loop.ports import ModelError
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

    async def answering(self) -> bool:
        """A server is leased and answers a health request (serving its model)."""
        lease = self._lease
        return lease is not None and await asyncio.to_thread(lease.answers)

    async def ensure_started(self) -> Lease:
        """The lease on a server that answers: the one held while it does, else a new one
        (provisioning on first use; a lease whose server is gone is given back first)."""
        async with self._starting:
            held = self._lease
            if held is not None and not await asyncio.to_thread(held.answers):
                await self._give_back(held)
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
        # Within a run the held lease is used as it is (no health request per turn); a failed
        # request finds out whether its server died.
        lease = self._lease or await self.ensure_started()
        try:
            return await call()
        except ProviderUnreachableError:
            try:
                told = await _in_thread(lambda _cancel: lease.revive())
            except LocalModelUnavailable:
                await self._give_back(lease)  # died twice: the next start provisions anew
                raise
            if told is None:
                raise  # the server runs: this failure is not a crash
            self.endpoint = replace(self.endpoint, base_url=lease.base_url)
            self.hooks.notice(f"rune: {told}")
            return await call()

    async def aclose(self) -> None:
        await super().aclose()
        if self._lease is not None:
            await self._give_back(self._lease)

    async def _give_back(self, lease: Lease) -> None:
        """Release `lease` (and forget it); a server left running is told to the user (the
        supervisor logs it)."""
        if self._lease is lease:
            self._lease = None
        released = await asyncio.to_thread(lease.release)
        if released.outcome == "left running":
            self.hooks.notice(f"rune: {released.message}")


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
