"""Which provider a run uses when the user did not say: Ollama if it answers, else rune's own.

Only a `provider` (and `baseUrl`) the user left unset is ever replaced. When Ollama does not
answer, a local model that is already provisioned is used (and the user told so); one that is
not is offered, with what it costs, and set up only when the user agrees.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from rune_lsp.localmodel.provision import LocalPlan
from rune_lsp.settings import Settings

#: An Ollama that does not answer this fast is not running (it answers in milliseconds).
_REACHABLE_TIMEOUT = 2.0


@dataclass(frozen=True)
class Resolution:
    settings: Settings  # what to use now
    note: str | None = None  # tell the user: what was chosen instead of what and why
    offered: LocalPlan | None = None  # not usable yet: the local model rune offers to set up
    reason: str = ""  # why the offer: what did not answer

    @property
    def offer(self) -> str | None:
        return self.offer_text("`rune-lsp setup-local`") if self.offered else None

    def offer_text(self, how: str) -> str:
        """The offer in one sentence; `how` names what the user does to accept it."""
        plan = self.offered
        assert plan is not None
        return (
            f"{self.reason}. rune can run a model itself instead: {how} {plan.cost()}; later "
            "starts take seconds. Or start Ollama (`ollama serve`), or set `provider` to your "
            "own server."
        )

    @property
    def local(self) -> Settings:
        """The settings with the `local` provider, for when the user accepts the offer."""
        return self.settings.model_copy(update={"provider": "local"})


def implicit(settings: Settings) -> bool:
    """True when the user named neither a provider nor an endpoint: the default is ours."""
    return not ({"provider", "base_url"} & settings.model_fields_set)


async def ollama_reachable(settings: Settings) -> bool:
    try:
        async with httpx.AsyncClient(timeout=_REACHABLE_TIMEOUT, trust_env=False) as client:
            await client.get(settings.resolved_base_url + "/api/version")
    except httpx.HTTPError:
        return False
    return True


async def resolve_provider(settings: Settings) -> Resolution:
    if not implicit(settings) or await ollama_reachable(settings):
        return Resolution(settings)
    plan = LocalPlan.from_settings(settings)
    down = f"Ollama is not running at {settings.resolved_base_url}"
    if plan.provisioned:
        note = f"{down}; using rune's local model instead ({plan.title}, llama-server)."
        return Resolution(settings.model_copy(update={"provider": "local"}), note=note)
    return Resolution(settings, offered=plan, reason=down)
