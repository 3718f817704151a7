"""A bare JSON-RPC client over a server subprocess's pipes, for bytes no real client sends.

pytest-lsp always frames correctly, so malformed frames are written here by hand. A reader
thread splits stdout into frames; a frame that is not `Content-Length` + JSON fails the test.
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from tests.e2e.conftest import server_env

WAIT = 30.0  # a guard against a hang, never a speed target


def framed(body: bytes) -> bytes:
    """A correctly framed body (a wrong Content-Length would swallow the next frame)."""
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class RawServer:
    def __init__(self, state_dir: Path) -> None:
        env = {**server_env(), "RUNE_STATE_DIR": str(state_dir)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rune_lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.frames: queue.Queue[dict[str, Any] | Exception] = queue.Queue()
        self.stderr = bytearray()
        self.seen: list[dict[str, Any]] = []  # every frame read so far, in order
        self._next_id = 0
        self._threads = [
            threading.Thread(target=self._read_frames, args=(_pipe(self.process.stdout),)),
            threading.Thread(target=self._read_stderr, args=(_pipe(self.process.stderr),)),
        ]
        for thread in self._threads:
            thread.daemon = True
            thread.start()

    # --- writing ----------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        stdin = _pipe(self.process.stdin)
        stdin.write(data)
        stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.write(framed(json.dumps(message).encode()))

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        """Send a request and wait (bounded) for its response, skipping anything else."""
        self._next_id += 1
        msg_id = self._next_id
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        while True:
            frame = self.next_frame()
            if frame.get("id") == msg_id and "method" not in frame:
                return frame

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def next_frame(self) -> dict[str, Any]:
        item = self.frames.get(timeout=WAIT)
        if isinstance(item, Exception):
            raise item
        self.seen.append(item)
        if item.get("method") and "id" in item:  # a request from the server: answer it empty
            self.send({"jsonrpc": "2.0", "id": item["id"], "result": None})
        return item

    def initialize(self, workspace: Path) -> dict[str, Any]:
        answer = self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": workspace.as_uri(),
                "capabilities": {},
                "workspaceFolders": [{"uri": workspace.as_uri(), "name": workspace.name}],
            },
        )
        self.notify("initialized", {})
        return answer

    def stop(self) -> int:
        """shutdown + exit; the exit code."""
        self.request("shutdown")
        self.notify("exit")
        return self.process.wait(timeout=WAIT)

    # --- reading ----------------------------------------------------------------------------

    def _read_frames(self, stdout: IO[bytes]) -> None:
        try:
            while True:
                length = None
                while (line := stdout.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode("ascii").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                    elif name.strip().lower() != "content-type":
                        raise ValueError(f"not an LSP header: {line!r}")
                if not line:
                    return
                if length is None:
                    raise ValueError("a frame without Content-Length")
                self.frames.put(json.loads(stdout.read(length)))
        except Exception as exc:
            self.frames.put(exc)

    def _read_stderr(self, stderr: IO[bytes]) -> None:
        while chunk := stderr.read1(65536):  # type: ignore[attr-defined]
            self.stderr.extend(chunk)

    def __enter__(self) -> RawServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=WAIT)
        for thread in self._threads:
            thread.join(timeout=WAIT)
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()


def _pipe(pipe: IO[bytes] | None) -> IO[bytes]:
    if pipe is None:
        raise RuntimeError("the server process was started without a pipe")
    return pipe
