"""Issue 16: every request carries an output cap and a low temperature (`maxOutputTokens`,
`temperature`), in each server's own field."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from rune_lsp.loop.messages import Message
from rune_lsp.providers.transport import HttpProvider, fitted_output_tokens
from tests.doubles.model_double import ModelDouble, ModelInfo

Connect = Callable[..., HttpProvider]
HI = [Message(role="user", content="hi")]


def _sent(double: ModelDouble, provider: str) -> tuple[object, object]:
    body = double.last_chat_body()
    if provider == "ollama":
        return body["options"].get("num_predict"), body["options"].get("temperature")
    return body.get("max_tokens"), body.get("temperature")


@pytest.mark.parametrize(
    ("context", "expected"),
    [(None, 2048), (40_960, 2048), (8_192, 2048), (4_096, 1024), (2_048, 512), (512, 256)],
)
def test_the_default_cap_is_the_answer_reserve_of_the_window(
    context: int | None, expected: int
) -> None:
    assert fitted_output_tokens(context) == expected


async def test_defaults_are_sent_to_both_providers(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    await connect(provider).chat(HI, [])
    assert _sent(double, provider) == (2048, 0.2)


async def test_settings_are_sent_as_given(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    await connect(provider, max_output_tokens=300, temperature=0.0).chat(HI, [])
    assert _sent(double, provider) == (300, 0.0)


async def test_the_cap_fits_a_small_window_once_it_is_known(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    double.models = (ModelInfo("qwen3:14b", context_length=2048),)
    model = connect(provider)

    assert (await model.capabilities()).context_length == 2048
    await model.chat(HI, [])

    assert _sent(double, provider) == (512, 0.2)


async def test_the_context_setting_fits_the_cap_too(
    double: ModelDouble, connect: Connect, provider: str
) -> None:
    await connect(provider, context_length=4096).chat(HI, [])
    assert _sent(double, provider)[0] == 1024
