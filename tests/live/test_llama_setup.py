"""The live tier's own plumbing, without llama.cpp: finding the install, the skip reasons,
starting, waiting for and ending a server (a stand-in script here), and the forcing grammars.

Not marked live: these run in every test run, in well under a second each.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import httpx
import pytest

from tests.live.llama import (
    NOT_BUILT,
    LlamaInstall,
    LlamaServer,
    LlamaStartError,
    LlamaUnavailable,
    find_install,
    forced_call,
)

#: Answers /health like llama-server once it has loaded its model, on the --port it is given.
STAND_IN = """\
import http.server, sys
port = int(sys.argv[sys.argv.index("--port") + 1])
class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/health" else 404)
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", port), Health).serve_forever()
"""


def executable(path: Path, body: str) -> Path:
    path.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.fixture
def no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache, and no paths from the developer's environment."""
    monkeypatch.setenv("RUNE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RUNE_LLAMA_SERVER", raising=False)
    monkeypatch.delenv("RUNE_LLAMA_MODEL", raising=False)
    return tmp_path


def test_without_a_build_the_reason_names_the_build_command(no_cache: Path) -> None:
    with pytest.raises(LlamaUnavailable) as raised:
        find_install()

    assert str(raised.value) == NOT_BUILT
    assert NOT_BUILT == "llama-server not built: run scripts/llama-server build"


def test_paths_from_the_environment_are_used_and_checked(
    no_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = executable(no_cache / "llama-server", "")
    monkeypatch.setenv("RUNE_LLAMA_SERVER", str(binary))
    monkeypatch.setenv("RUNE_LLAMA_MODEL", str(no_cache / "absent.gguf"))
    with pytest.raises(LlamaUnavailable, match=r"RUNE_LLAMA_MODEL=.*absent\.gguf"):
        find_install()

    model = no_cache / "model.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setenv("RUNE_LLAMA_MODEL", str(model))

    assert find_install() == LlamaInstall(binary=binary, model=model)


def test_a_started_server_is_ready_and_ended_by_its_pid(tmp_path: Path) -> None:
    binary = executable(tmp_path / "llama-server", STAND_IN)
    server = LlamaServer(LlamaInstall(binary, tmp_path / "m.gguf"), log=tmp_path / "log")

    with server:
        pid = server.pid
        assert pid is not None
        assert httpx.get(f"http://127.0.0.1:{server.port}/health").status_code == 200
        assert server.base_url == f"http://127.0.0.1:{server.port}/v1"

    assert server.pid is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    server.stop()  # a second stop is harmless


def test_a_server_that_dies_at_start_reports_its_log(tmp_path: Path) -> None:
    crash = "import sys\nprint('error: unknown argument --alias')\nsys.exit(3)\n"
    binary = executable(tmp_path / "llama-server", crash)
    server = LlamaServer(LlamaInstall(binary, tmp_path / "m.gguf"), log=tmp_path / "log")

    with pytest.raises(LlamaStartError, match=r"exited with 3:\n.*unknown argument --alias"):
        server.start()
    assert server.pid is None


@pytest.mark.parametrize("tagged", [False, True])
def test_a_forcing_grammar_spells_exactly_one_call(tagged: bool) -> None:
    grammar = forced_call("read_file", {"path": "calc.py"}, tagged=tagged)

    head, _, literal = grammar.partition(" ::= ")
    block = json.loads(literal)

    assert head == "root"
    call = block.removeprefix("<tool_call>").removesuffix("</tool_call>")
    if not tagged:
        call = block.removeprefix("```json\n").removesuffix("\n```")
    assert json.loads(call) == {"name": "read_file", "arguments": {"path": "calc.py"}}
