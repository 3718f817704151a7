"""The effect bench's instruments, without a model: the counting proxy, the corpus check, and
the judge of "fixed". A wrong instrument would make every number in the report wrong."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from bench.effect.arms import Endpoint, invocation
from bench.effect.corpus import check_task, is_fixed, load_corpus, load_tasks, make_workspace
from bench.effect.proxy import CountingProxy, read_timings

TIMINGS = {"prompt_n": 120, "cache_n": 900, "predicted_n": 42}
LAST = {"choices": [{"delta": {}, "finish_reason": "stop"}], "timings": TIMINGS}
STREAM = (
    'data: {"choices":[{"delta":{"content":"hi"}}]}\n\n'
    f"data: {json.dumps(LAST)}\n\n"
    "data: [DONE]\n\n"
).encode()


class Upstream(BaseHTTPRequestHandler):
    """llama-server's shape: an SSE answer with timings on the last chunk; `/slow/...` waits
    before that last chunk, like a model generating a long answer."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        first, rest = STREAM.split(b"\n\n", 1)
        self.wfile.write(first + b"\n\n")
        self.wfile.flush()
        with contextlib.suppress(OSError):
            if self.path.startswith("/slow"):
                time.sleep(1.0)
                # More than any socket buffer holds, so a proxy whose client has gone finds out.
                for _ in range(400):
                    self.wfile.write(
                        b'data: {"choices":[{"delta":{"content":"' + b"x" * 16384 + b'"}}]}\n\n'
                    )
            self.wfile.write(rest)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_proxy_passes_the_stream_through_and_counts_the_servers_timings(
    upstream: str,
) -> None:
    with CountingProxy(upstream) as proxy:
        answer = httpx.post(f"{proxy.base_url}/chat/completions", json={"stream": True})
        exchanges = proxy.take()

        assert answer.content == STREAM
        assert len(exchanges) == 1
        exchange = exchanges[0]
        assert (exchange.processed_tokens, exchange.cached_tokens) == (120, 900)
        assert exchange.prompt_tokens == 1020 and exchange.completion_tokens == 42
        assert proxy.take() == []


def test_a_request_the_agent_gives_up_on_is_still_counted(upstream: str) -> None:
    with CountingProxy(upstream) as proxy:
        slow = proxy.base_url.replace("/v1", "/slow/v1")
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{slow}/chat/completions", json={}, timeout=httpx.Timeout(5, read=0.3))
        deadline = time.monotonic() + 10
        while not (exchanges := proxy.take()) and time.monotonic() < deadline:
            time.sleep(0.1)

    assert len(exchanges) == 1
    assert not exchanges[0].finished and exchanges[0].completion_tokens == 0


def test_timings_are_read_from_a_whole_answer_too() -> None:
    assert read_timings(json.dumps({"choices": [], "timings": TIMINGS}).encode()) == TIMINGS
    assert read_timings(b"not json") == {}


def test_every_task_of_the_corpus_is_sound_and_there_are_enough() -> None:
    tasks = load_tasks()
    assert len(tasks) >= 30
    assert len({t.kind for t in tasks}) >= 15
    # Two tasks, one each side of the corpus: checking all 37 takes a minute of pytest runs.
    for task in (tasks[0], tasks[-1]):
        assert check_task(task).sound, task.name


def test_fixed_is_judged_with_the_tasks_own_test(tmp_path: Path) -> None:
    task = load_tasks()[0]
    workspace = make_workspace(task, tmp_path / "ws")
    assert not is_fixed(task, workspace)
    # An agent that "fixes" the test instead of the program has not fixed anything.
    (workspace / "test_prog.py").write_text("def test_nothing():\n    pass\n", encoding="utf-8")
    assert not is_fixed(task, workspace)
    (workspace / "prog.py").write_text(task.source("reference.py"), encoding="utf-8")
    assert is_fixed(task, workspace)


def test_the_multi_corpus_points_at_failing_tests_of_buggy_modules() -> None:
    tasks = load_corpus("multi")
    assert len(tasks) >= 8
    for task in tasks:
        assert task.target == task.test and task.test.startswith("tests/test_")
        assert task.program != task.target and "/" in task.program
        assert task.instruction == f"The test {task.target} fails. Fix the bug."
    # Two tasks, one each side of the corpus (every task is checked by each bench run).
    for task in (tasks[0], tasks[-1]):
        assert check_task(task).sound, task.name


def test_a_multi_task_is_a_git_workspace_judged_by_its_own_test(tmp_path: Path) -> None:
    task = load_corpus("multi")[0]
    workspace = make_workspace(task, tmp_path / "ws")
    assert (workspace / ".git").is_dir()
    assert (workspace / task.program).read_text(encoding="utf-8") == task.buggy
    assert not is_fixed(task, workspace)
    (workspace / task.test).write_text("def test_nothing():\n    pass\n", encoding="utf-8")
    assert not is_fixed(task, workspace)  # the test was "fixed", not the module
    (workspace / task.program).write_text(task.source("reference.py"), encoding="utf-8")
    assert is_fixed(task, workspace)


def test_the_arms_point_at_a_multi_tasks_target(tmp_path: Path) -> None:
    task = load_corpus("multi")[0]
    endpoint = Endpoint("http://127.0.0.1:1/v1", "coder")
    blind = invocation("rune_blind", task, endpoint, tmp_path, Path("aider")).argv
    check = invocation("rune_check", task, endpoint, tmp_path, Path("aider")).argv
    offered = invocation("rune_offered", task, endpoint, tmp_path, Path("aider")).argv
    assert blind[1:4] == ("fix", task.target, "-m") and blind[4] == task.instruction
    assert blind[-2:] == ("--offer-check", "false")
    assert check[-2:] == ("--check-command", task.test_command)
    assert "--offer-check" not in offered and "--check-command" not in offered
    assert (
        invocation("aider_blind", task, endpoint, tmp_path, Path("aider")).argv[-1] == task.target
    )
