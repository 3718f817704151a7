"""A stand-in for llama-server: the same flags, /health, /v1/models, /v1/chat/completions.

Run as `python fake_llama_server.py …` through a wrapper script (tests/localmodel/fakes.py).
FAKE_LLAMA_MODE changes its behaviour: `old` (a --help without --jinja), `exit` (dies while
starting), `crash-after-start` (dies when it gets its first chat), `hang` (never listens),
`help-hang` (its --help never ends), `disguise` (serves from a child in a session of its own
whose command line names no model or port, as a wrapper that hides its server would).
FAKE_LLAMA_STARTS, when set, is a file that gets one line per start (to count restarts);
FAKE_LLAMA_HELPS one line per --help (its pid).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

MODE = os.environ.get("FAKE_LLAMA_MODE", "")
HELP = "--jinja --alias --ctx-size --threads --parallel --host --port"


def main() -> int:
    hidden = os.environ.get("FAKE_LLAMA_ARGS")
    argv = json.loads(hidden) if hidden else sys.argv[1:]
    if MODE == "disguise" and not hidden:
        env = {**os.environ, "FAKE_LLAMA_ARGS": json.dumps(argv)}
        server = subprocess.Popen([sys.executable, __file__], env=env, start_new_session=True)
        return server.wait()
    if "--help" in argv:
        helps = os.environ.get("FAKE_LLAMA_HELPS")
        if helps:
            with open(helps, "a", encoding="utf-8") as record:
                record.write(f"{os.getpid()}\n")
        if MODE == "help-hang":
            time.sleep(3600)
        print("usage: llama-server" if MODE == "old" else f"usage: llama-server {HELP}")
        return 0
    parser = argparse.ArgumentParser()
    flags = ("-m", "--alias", "--host", "--port", "--ctx-size", "--threads", "--parallel")
    for flag in (*flags, "--n-predict"):
        parser.add_argument(flag)
    parser.add_argument("--jinja", action="store_true")
    args = parser.parse_args(argv)
    starts = os.environ.get("FAKE_LLAMA_STARTS")
    if starts:
        with open(starts, "a", encoding="utf-8") as record:
            record.write(f"{os.getpid()}\n")
    if MODE == "hang":  # never becomes healthy
        time.sleep(3600)
    if MODE == "exit":
        print("llama_model_load: error loading model: tensor data is not within bounds")
        return 1
    alias = args.alias

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *items: object) -> None:
            pass

        def _json(self, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/health":
                self._json({"status": "ok"})
            elif self.path == "/v1/models":
                self._json({"data": [{"id": alias, "meta": {"n_ctx_train": 32768}}]})
            else:
                self.send_error(404)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            self.rfile.read(length)
            if MODE == "crash-after-start":
                os._exit(3)
            message = {"role": "assistant", "content": "ok"}
            self._json({"choices": [{"message": message, "finish_reason": "stop"}]})

    try:
        server = HTTPServer((args.host, int(args.port)), Handler)
    except OSError as exc:
        print(f"couldn't bind HTTP server socket, hostname: {args.host}, port: {args.port}: {exc}")
        return 1
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
