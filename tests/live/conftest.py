"""The live tier: real llama-servers started on 127.0.0.1 for the session and ended by PID.

Every test module here is marked `live`. Without a built binary or an installed model the tests
skip with the command that provides them; nothing here builds (that takes minutes).
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Iterator

import pytest

from tests.live.llama import (
    LlamaInstall,
    LlamaOptions,
    LlamaServer,
    LlamaStartError,
    LlamaUnavailable,
    StartLlama,
    find_coder,
    find_install,
)


@pytest.fixture(scope="session")
def llama_install() -> LlamaInstall:
    try:
        return find_install()
    except LlamaUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def start_llama(
    llama_install: LlamaInstall, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StartLlama]:
    """`start_llama(options)`: one more server, stopped when the session ends, pass or fail."""
    with _server_starter(llama_install, tmp_path_factory) as start:
        yield start


@pytest.fixture(scope="session")
def coder_install() -> LlamaInstall:
    """The coding model (env RUNE_LIVE_CODER, default qwen-0.5b), or why it is absent."""
    try:
        return find_coder()
    except LlamaUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def start_coder(
    coder_install: LlamaInstall, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StartLlama]:
    """`start_coder(options)`: a server for the coding model, stopped when the session ends."""
    with _server_starter(coder_install, tmp_path_factory) as start:
        yield start


@contextlib.contextmanager
def _server_starter(
    install: LlamaInstall, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StartLlama]:
    started: list[LlamaServer] = []
    numbers = itertools.count(1)
    logs = tmp_path_factory.mktemp(install.alias)

    def start(options: LlamaOptions) -> LlamaServer:
        server = LlamaServer(
            install, log=logs / f"llama-server-{next(numbers)}.log", options=options
        )
        started.append(server)
        try:
            server.start()
        except LlamaStartError as exc:
            pytest.fail(str(exc))
        return server

    try:
        yield start
    finally:
        for server in started:
            server.stop()


@pytest.fixture(scope="session")
def llama(start_llama: StartLlama) -> LlamaServer:
    """The model as it is, with the tool template: it answers whatever it answers."""
    return start_llama(LlamaOptions())


@pytest.fixture
def clean_env() -> dict[str, str]:
    """The environment without the developer's RUNE_* settings, for subprocesses."""
    return {k: v for k, v in os.environ.items() if not k.startswith("RUNE_")}
