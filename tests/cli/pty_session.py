"""`rune-lsp` in a real pseudo-terminal: what a user at a shell sees and types.

The pty becomes the child's controlling terminal, so writing `\\x03` makes the kernel send
SIGINT exactly as pressing Ctrl-C does. Pure Python (`os.openpty`): nothing to install.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

# Runs in the child: adopt the pty (stdin) as controlling terminal, then become rune-lsp.
_ADOPT_TTY = (
    "import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    "os.execv(sys.executable, [sys.executable, '-m', 'rune_lsp', *sys.argv[1:]])"
)


class PtySession:
    def __init__(self, args: Sequence[str], *, cwd: Path, env: Mapping[str, str]) -> None:
        master, slave = os.openpty()
        self._master = master
        self._seen = bytearray()
        self._changed = threading.Condition()
        self._position = 0  # where the next `expect` starts looking
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _ADOPT_TTY, *args],
                stdin=slave,
                stdout=slave,
                stderr=slave,
                cwd=cwd,
                env=dict(env),
                start_new_session=True,  # a session of its own, so it may take the pty
            )
        finally:
            os.close(slave)
        self._reader = threading.Thread(target=self._read, name="pty-reader", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self._master, 4096)
            except OSError:  # EIO: the child side is closed
                chunk = b""
            with self._changed:
                if not chunk:
                    self._changed.notify_all()
                    return
                self._seen.extend(chunk)
                self._changed.notify_all()

    @property
    def output(self) -> str:
        """Everything shown so far, with the terminal's CRLF turned back into LF."""
        with self._changed:
            return self._seen.decode("utf-8", errors="replace").replace("\r\n", "\n")

    def expect(self, text: str, timeout: float = 15) -> None:
        """Wait until `text` appears after what the previous `expect` matched."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.output.find(text, self._position)
            if found >= 0:
                self._position = found + len(text)
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (self.process.poll() is not None and not self._reader.is_alive()):
                raise AssertionError(f"{text!r} never appeared; the terminal shows:\n{self.output}")
            with self._changed:
                self._changed.wait(min(remaining, 0.1))

    def send(self, text: str) -> None:
        """Type `text` at the terminal (`\\x03` is Ctrl-C)."""
        os.write(self._master, text.encode())

    def wait(self, timeout: float = 15) -> int:
        code = self.process.wait(timeout=timeout)
        self._reader.join(timeout=timeout)
        return code

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=5)
        self._reader.join(timeout=5)
        with contextlib.suppress(OSError):
            os.close(self._master)

    def __enter__(self) -> PtySession:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
