"""The model double itself: what other suites (and subprocess clients) rely on."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from tests.doubles.model_double import (
    Call,
    HttpError,
    ModelDouble,
    RecordedRequest,
    Reply,
    Scripted,
)

_CLIENT = """
import json, sys, urllib.request
base = sys.argv[1]
request = urllib.request.Request(
    base + "/api/chat",
    data=json.dumps({"model": "qwen3:14b", "messages": [], "stream": False}).encode(),
    headers={"Content-Type": "application/json"},
)
print(json.load(urllib.request.urlopen(request, timeout=10))["message"]["content"])
"""


def _post(url: str, body: dict[str, object]) -> tuple[int, bytes]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_a_subprocess_can_talk_to_it(double: ModelDouble) -> None:
    double.script(Reply(text="from the script"))

    result = subprocess.run(
        [sys.executable, "-c", _CLIENT, double.ollama_url],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )

    assert result.stdout.strip() == "from the script"
    assert double.chat_requests[0].headers["content-type"] == "application/json"


def test_script_then_default(double: ModelDouble) -> None:
    double.script(Reply(text="first"))
    url = double.ollama_url + "/api/chat"
    body = {"model": "qwen3:14b", "messages": [], "stream": False}

    answers = [json.loads(_post(url, body)[1])["message"]["content"] for _ in range(2)]

    assert answers == ["first", "done"]
    assert double.remaining == 0


def test_responder_answers_from_the_request(double: ModelDouble) -> None:
    def echo(request: RecordedRequest) -> Scripted:
        last = request.body["messages"][-1]["content"]
        if last == "fail":
            return HttpError(503, "busy")
        return Reply(tool_calls=(Call("echo", {"said": last}),))

    double.responder = echo
    url = double.openai_url + "/chat/completions"

    ok = json.loads(
        _post(url, {"model": "qwen3:14b", "messages": [{"role": "user", "content": "hi"}]})[1]
    )
    status, _ = _post(
        url, {"model": "qwen3:14b", "messages": [{"role": "user", "content": "fail"}]}
    )

    call = ok["choices"][0]["message"]["tool_calls"][0]
    assert json.loads(call["function"]["arguments"]) == {"said": "hi"}
    assert status == 503


def test_unknown_paths_and_models_answer_like_the_servers(double: ModelDouble) -> None:
    assert _post(double.ollama_url + "/api/nothing", {})[0] == 404
    status, body = _post(double.ollama_url + "/api/chat", {"model": "nope", "messages": []})
    assert status == 404
    assert json.loads(body) == {"error": 'model "nope" not found, try pulling it first'}


def test_stop_makes_the_port_refuse(double: ModelDouble) -> None:
    url = double.ollama_url + "/api/tags"
    double.stop()

    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=2)


def test_it_comes_back_on_the_same_port(double: ModelDouble) -> None:
    url = double.ollama_url + "/api/tags"
    double.refuse_connections()

    double.start()

    assert double.ollama_url + "/api/tags" == url
    with urllib.request.urlopen(url, timeout=5) as response:
        assert json.load(response)["models"][0]["name"] == "qwen3:14b"
