"""`rune-lsp check`: is the configured server up, does it have the model, can it answer?

Each step that fails adds one plain sentence saying what to do; later steps that depend on it
are skipped rather than reported as further failures.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import httpx

from rune_lsp.loop.messages import Message
from rune_lsp.loop.ports import ModelError
from rune_lsp.providers import make_model
from rune_lsp.providers.errors import (
    ModelNotFoundError,
    ProviderTimeoutError,
    ProviderUnreachableError,
)
from rune_lsp.providers.local import LocalHooks, LocalModel
from rune_lsp.providers.transport import HttpProvider
from rune_lsp.settings import ProviderName, Settings

# Below this many tokens a file plus the conversation rarely fits.
_SMALL_CONTEXT = 8192
_PING = "Reply with the single word: ok"


@dataclass(frozen=True)
class ProbeReport:
    provider: ProviderName
    base_url: str
    model: str
    reachable: bool = False
    model_present: bool = False
    native_tools: bool | None = None
    thinking: bool | None = None
    context_length: int | None = None
    round_trip_ok: bool = False
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # worth knowing, but the setup works

    @property
    def usable(self) -> bool:
        return self.reachable and self.model_present and self.round_trip_ok and not self.problems


async def probe(
    settings: Settings,
    *,
    client: httpx.AsyncClient | None = None,
    local: LocalHooks | None = None,
) -> ProbeReport:
    """`local`: how the `local` provider reports starting (or provisioning) its server."""
    provider = make_model(settings, client=client, local=local)
    try:
        if isinstance(provider, LocalModel):
            failed = await _start_local(provider)
            if failed is not None:
                return failed
        return await _Probe(provider).run()
    finally:
        await provider.aclose()


async def _start_local(provider: LocalModel) -> ProbeReport | None:
    """The report of a local model server that could not be started, else None."""
    try:
        await provider.ensure_started()
    except ModelError as exc:
        endpoint = provider.endpoint
        return ProbeReport(
            provider=endpoint.kind,
            base_url=endpoint.display_url,
            model=endpoint.model,
            problems=(str(exc),),
        )
    return None


class _Probe:
    def __init__(self, provider: HttpProvider) -> None:
        self.provider = provider
        endpoint = provider.endpoint
        self.report = ProbeReport(
            provider=endpoint.kind, base_url=endpoint.display_url, model=endpoint.model
        )

    def _update(self, **changes: Any) -> None:
        self.report = replace(self.report, **changes)

    def _problem(self, sentence: str) -> None:
        self._update(problems=(*self.report.problems, sentence))

    def _note(self, sentence: str) -> None:
        self._update(notes=(*self.report.notes, sentence))

    async def run(self) -> ProbeReport:
        available = await self._list_models()
        if not self.report.reachable:
            return self.report
        if available is not None and not self._check_listed(available):
            return self.report
        await self._capabilities()
        await self._round_trip()
        return self.report

    async def _list_models(self) -> tuple[str, ...] | None:
        try:
            available = await self.provider.list_models()
        except ProviderUnreachableError:
            self._problem(self._not_running())
            return None
        except ProviderTimeoutError as exc:
            self._problem(str(exc))
            return None
        except ModelError as exc:
            # It answered, just not with a model list (some OpenAI-compatible servers have
            # none); the round trip decides whether the model is there.
            self._update(reachable=True)
            self._note(f"The list of models could not be read: {exc}")
            return None
        self._update(reachable=True)
        return available

    def _not_running(self) -> str:
        endpoint = self.provider.endpoint
        if endpoint.kind == "ollama":
            return f"Ollama is not running at {endpoint.display_url}: start it with `ollama serve`."
        return (
            f"No OpenAI-compatible server answers at {endpoint.display_url}: start it, or set "
            "`baseUrl` to the address it listens on."
        )

    def _check_listed(self, available: tuple[str, ...]) -> bool:
        """True when the round trip is still worth trying."""
        model = self.provider.model
        if model in available or f"{model}:latest" in available:
            self._update(model_present=True)
            return True
        listing = ", ".join(available) if available else "none"
        if self.provider.endpoint.kind == "ollama":
            self._problem(
                f"The model `{model}` is not installed in Ollama: run `ollama pull {model}`, "
                f"or set `model` to an installed one ({listing})."
            )
            return False
        # llama.cpp answers with its one loaded model whatever name is asked for, so a
        # name missing from the list is only a hint here.
        self._note(f"The server lists {listing}, not `{model}`.")
        return True

    async def _capabilities(self) -> None:
        try:
            caps = await self.provider.capabilities()
        except ModelError as exc:
            self._problem(str(exc))
            return
        self._update(
            native_tools=caps.native_tools,
            thinking=caps.thinking,
            context_length=caps.context_length,
        )
        model = self.provider.model
        if not caps.native_tools:
            self._note(
                f"`{model}` has no native tool calling: rune uses its text protocol instead, "
                "which works but is less reliable. A model with tool support does better."
            )
        if caps.context_length is not None and caps.context_length < _SMALL_CONTEXT:
            self._note(
                f"`{model}` handles only {caps.context_length} tokens of context: large files "
                "may not fit."
            )

    async def _round_trip(self) -> None:
        if self.report.problems:
            return
        try:
            await self.provider.chat([Message(role="user", content=_PING)], [])
        except ModelNotFoundError as exc:
            self._update(model_present=False)
            self._problem(str(exc))
            return
        except ModelError as exc:
            self._problem(f"A test question to `{self.provider.model}` failed: {exc}")
            return
        self._update(round_trip_ok=True, model_present=True)


def render_report(report: ProbeReport) -> str:
    """A short report for a terminal: one line per check, then the verdict and its reasons."""
    lines = [f"rune-lsp check: {report.provider} at {report.base_url}, model {report.model}"]
    rows = [
        ("server reachable", _yes_no(report.reachable)),
        ("model available", _yes_no(report.model_present) if report.reachable else "not checked"),
        ("native tool calls", _maybe(report.native_tools)),
        ("thinking", _maybe(report.thinking)),
        (
            "context length",
            f"{report.context_length} tokens" if report.context_length else "unknown",
        ),
        ("test answer", "ok" if report.round_trip_ok else "failed or not tried"),
    ]
    lines += [f"  {label:<18} {value}" for label, value in rows]
    lines += [f"Note: {note}" for note in report.notes]
    if report.usable:
        lines.append("Usable.")
    else:
        lines.append("Not usable:")
        reasons = report.problems or ("the model did not answer the test question.",)
        lines += [f"  - {reason}" for reason in reasons]
    return "\n".join(lines)


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def _maybe(value: bool | None) -> str:
    return "unknown" if value is None else _yes_no(value)
