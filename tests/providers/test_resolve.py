"""Which provider runs when the user set none: Ollama when it answers, else rune's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from rune_lsp.providers import resolve
from rune_lsp.settings import load_settings
from tests.localmodel.fakes import fake_binary, fake_model


@pytest.fixture
def ollama(monkeypatch: pytest.MonkeyPatch) -> dict[str, bool]:
    state = {"up": False}

    async def reachable(settings: object) -> bool:
        return state["up"]

    monkeypatch.setattr(resolve, "ollama_reachable", reachable)
    return state


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUNE_CACHE_DIR", str(tmp_path / "cache"))


def test_only_unset_provider_and_endpoint_are_rune_s_to_choose() -> None:
    assert resolve.implicit(load_settings({}, environ={})[0])
    assert resolve.implicit(load_settings({"model": "x"}, environ={})[0])
    assert not resolve.implicit(load_settings({"provider": "ollama"}, environ={})[0])
    assert not resolve.implicit(load_settings({}, environ={"RUNE_BASE_URL": "http://h:1"})[0])


async def test_a_running_ollama_is_used(ollama: dict[str, bool]) -> None:
    ollama["up"] = True
    settings = load_settings({}, environ={})[0]
    chosen = await resolve.resolve_provider(settings)
    assert chosen.settings.provider == "ollama" and chosen.offer is None and chosen.note is None


async def test_without_ollama_an_unprovisioned_local_model_is_offered(
    ollama: dict[str, bool],
) -> None:
    settings = load_settings({"localModel": "qwen-0.5b"}, environ={})[0]
    chosen = await resolve.resolve_provider(settings)
    assert chosen.settings.provider == "ollama"  # nothing changes until the user agrees
    assert chosen.offer is not None
    assert "downloads Qwen2.5-Coder-0.5B-Instruct (0.5 GB)" in chosen.offer
    assert chosen.local.provider == "local"


async def test_without_ollama_a_provisioned_local_model_is_used(
    ollama: dict[str, bool], tmp_path: Path
) -> None:
    fake_model(tmp_path / "cache", "qwen-1.5b")
    binary = fake_binary(tmp_path / "bin")
    settings = load_settings({"localServerPath": str(binary)}, environ={})[0]
    chosen = await resolve.resolve_provider(settings)
    assert chosen.settings.provider == "local"
    assert chosen.note is not None and "using rune's local model instead" in chosen.note


async def test_ollama_reachable_is_false_for_a_closed_port() -> None:
    settings = load_settings({"baseUrl": "http://127.0.0.1:9"}, environ={})[0]
    assert await resolve.ollama_reachable(settings) is False
