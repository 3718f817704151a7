"""The provider chooses the protocol: discovered, unless `nativeTools` forces it, a model
remembered as answering in prose starts with the text protocol, and only an unforced choice
may adapt during a run."""

from __future__ import annotations

from pathlib import Path

from rune_lsp.providers import make_model
from rune_lsp.settings import Settings
from rune_lsp.store.protocols import ProtocolMemory
from tests.doubles.model_double import ModelDouble


def _model(double: ModelDouble, provider: str, memory: ProtocolMemory, **settings: object):  # type: ignore[no-untyped-def]
    values = {"provider": provider, "base_url": double.base_url(provider), **settings}
    return make_model(Settings.model_validate(values), protocols=memory)


async def test_a_learned_choice_holds_in_later_runs_and_processes(
    double: ModelDouble, provider: str, tmp_path: Path
) -> None:
    model = _model(double, provider, ProtocolMemory(tmp_path))
    before = await model.capabilities()
    assert before.native_tools and before.adaptive_protocol

    model.prefer_text_protocol()
    after = await model.capabilities()
    assert not after.native_tools and not after.adaptive_protocol
    await model.aclose()

    # A new process reads the state dir at run start.
    fresh = _model(double, provider, ProtocolMemory(tmp_path))
    caps = await fresh.capabilities()
    assert (caps.native_tools, caps.adaptive_protocol) == (False, False)
    await fresh.aclose()


async def test_the_setting_forces_the_protocol_over_the_memory(
    double: ModelDouble, provider: str, tmp_path: Path
) -> None:
    memory = ProtocolMemory(tmp_path)
    memory.remember_text(f"{provider}:qwen3:14b")

    forced = _model(double, provider, memory, nativeTools=True)
    caps = await forced.capabilities()
    assert (caps.native_tools, caps.adaptive_protocol) == (True, False)
    await forced.aclose()

    text = _model(double, provider, ProtocolMemory(tmp_path / "other"), nativeTools=False)
    caps = await text.capabilities()
    assert (caps.native_tools, caps.adaptive_protocol) == (False, False)
    await text.aclose()
