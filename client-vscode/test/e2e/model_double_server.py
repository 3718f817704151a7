"""Serves the repository's HTTP model double (tests/doubles) for the VS Code end-to-end test.

    python model_double_server.py --script scenario.json [--log requests.jsonl]

The script is a JSON list of replies:
`{"text": "...", "toolCalls": [{"name": "edit_file", "arguments": {...}}], "chunkDelay": 0.5,
"when": "Task: fix the typo"}` (`chunkDelay`: seconds between streamed words, for a slow model).
A reply with `when` answers only a chat request whose first user message (the run's task, the
same through all of its turns and follow-ups) holds that text; the replies of one `when` are
answered in order, and so are the replies without one, to the requests no `when` matches. So a
scenario that fails before it takes its replies leaves the next scenario's replies alone
instead of shifting every later answer by one. A request whose `when` has no reply left gets a
note saying so. Prints
`PORT <n>` once listening on 127.0.0.1, then serves until its stdin closes (the test process
ending closes it) or it gets SIGTERM. With `--log`, writes every chat request body as JSON lines
on the way out, for debugging a failed run.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))

from tests.doubles.model_double import (  # noqa: E402
    Call,
    ModelDouble,
    RecordedRequest,
    Reply,
)

NO_REPLY_LEFT = Reply(text="(the script has no more replies for this request)")


class ScriptError(ValueError):
    """The scenario file does not describe a list of replies."""


@dataclass
class Script:
    """The replies, one queue per `when` (in the order the script first names it) and one for
    the rest; `answer` takes the next reply a chat request is due."""

    keyed: dict[str, deque[Reply]] = field(default_factory=dict)
    rest: deque[Reply] = field(default_factory=deque)
    # The double answers each request on its own thread.
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, request: RecordedRequest) -> Reply:
        task = first_user_message(request.body)
        queue = next((q for when, q in self.keyed.items() if when in task), self.rest)
        with self._lock:
            return queue.popleft() if queue else NO_REPLY_LEFT


def first_user_message(body: Any) -> str:
    """The text of the request's first user message, "" when it has none (both wire formats
    send `messages` with string `content`)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    for message in messages if isinstance(messages, list) else ():
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else ""
    return ""


def parse_script(raw: Any) -> Script:
    if not isinstance(raw, list):
        raise ScriptError("the script must be a JSON list of replies")
    script = Script()
    for index, item in enumerate(raw):
        when, reply = _reply(item, index)
        queue = script.rest if when is None else script.keyed.setdefault(when, deque())
        queue.append(reply)
    return script


def _reply(item: Any, index: int) -> tuple[str | None, Reply]:
    if not isinstance(item, dict):
        raise ScriptError(f"reply {index}: expected an object, got {item!r}")
    when = item.get("when")
    if when is not None and (not isinstance(when, str) or not when):
        raise ScriptError(f"reply {index}: when must be a non-empty string, got {when!r}")
    text = item.get("text", "")
    calls = item.get("toolCalls", [])
    delay = item.get("chunkDelay", 0.0)
    if not isinstance(text, str) or not isinstance(calls, list):
        raise ScriptError(f"reply {index}: text must be a string and toolCalls a list")
    if not isinstance(delay, int | float) or delay < 0:
        raise ScriptError(f"reply {index}: chunkDelay must be a non-negative number")
    return when, Reply(
        text=text,
        tool_calls=tuple(_call(call, index) for call in calls),
        chunk_delay=float(delay),
    )


def _call(call: Any, index: int) -> Call:
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        raise ScriptError(f"reply {index}: each tool call needs a name, got {call!r}")
    arguments = call.get("arguments", {})
    if not isinstance(arguments, dict):
        raise ScriptError(f"reply {index}: arguments of {call['name']} must be an object")
    return Call(call["name"], arguments)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", type=Path, required=True)
    parser.add_argument("--log", type=Path)
    args = parser.parse_args(argv)
    try:
        script = parse_script(json.loads(args.script.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        print(f"bad script {args.script}: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()

    def on_term(signum: int, frame: FrameType | None) -> None:
        stop.set()

    def until_stdin_closes() -> None:
        # A parent that dies without signalling still closes our stdin.
        sys.stdin.read()
        stop.set()

    signal.signal(signal.SIGTERM, on_term)
    threading.Thread(target=until_stdin_closes, daemon=True).start()
    with ModelDouble(responder=script.answer) as double:
        print(f"PORT {double.port}", flush=True)
        stop.wait()
        if args.log is not None:
            lines = (json.dumps(r.body) for r in double.chat_requests)
            args.log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
