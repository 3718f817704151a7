"""Serves the repository's HTTP model double (tests/doubles) for the VS Code end-to-end test.

    python model_double_server.py --script scenario.json [--log requests.jsonl]

The script is a JSON list of replies, answered in order to the chat requests:
`{"text": "...", "toolCalls": [{"name": "edit_file", "arguments": {...}}], "chunkDelay": 0.5}`
(`chunkDelay`: seconds between streamed words, for a slow model). Prints
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
from pathlib import Path
from types import FrameType
from typing import Any

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))

from tests.doubles.model_double import Call, ModelDouble, Reply  # noqa: E402


class ScriptError(ValueError):
    """The scenario file does not describe a list of replies."""


def parse_script(raw: Any) -> list[Reply]:
    if not isinstance(raw, list):
        raise ScriptError("the script must be a JSON list of replies")
    return [_reply(item, index) for index, item in enumerate(raw)]


def _reply(item: Any, index: int) -> Reply:
    if not isinstance(item, dict):
        raise ScriptError(f"reply {index}: expected an object, got {item!r}")
    text = item.get("text", "")
    calls = item.get("toolCalls", [])
    delay = item.get("chunkDelay", 0.0)
    if not isinstance(text, str) or not isinstance(calls, list):
        raise ScriptError(f"reply {index}: text must be a string and toolCalls a list")
    if not isinstance(delay, int | float) or delay < 0:
        raise ScriptError(f"reply {index}: chunkDelay must be a non-negative number")
    return Reply(
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
        replies = parse_script(json.loads(args.script.read_text(encoding="utf-8")))
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
    with ModelDouble(default=Reply(text="(the script has no more replies)")) as double:
        double.script(*replies)
        print(f"PORT {double.port}", flush=True)
        stop.wait()
        if args.log is not None:
            lines = (json.dumps(r.body) for r in double.chat_requests)
            args.log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
