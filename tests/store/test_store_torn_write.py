"""A writer killed mid-write must leave the previous receipt whole (SIGKILL, a real process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from store_samples import receipt

from rune_lsp.store.receipts import ReceiptStore

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")

REPO = Path(__file__).resolve().parents[2]

# The child writes a big receipt through atomic_write_text, one small chunk at a time with a
# pause after each, so the parent can kill it while the temp file is half written.
CHILD = """
import os, sys, time
from pathlib import Path
from rune_lsp.store import atomic
from rune_lsp.store.receipt import Receipt

target = Path(sys.argv[1])
old = Receipt.model_validate_json(target.read_text())
new = old.model_copy(update={"result": old.result.model_copy(update={"answer": "new " * 50_000})})
real_write = os.write

def slow_write(fd, data):
    written = real_write(fd, data)
    time.sleep(0.05)
    return written

atomic._CHUNK = 1024
atomic.os.write = slow_write
atomic.atomic_write_text(target, new.to_json())
print("finished", flush=True)
"""


def _wait_for_half_written_temp(directory: Path, child: subprocess.Popen[bytes]) -> Path:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        assert child.poll() is None, "the writer ended before it could be killed"
        temps = [p for p in directory.iterdir() if p.name.endswith(".tmp")]
        if temps and temps[0].stat().st_size > 0:
            return temps[0]
        time.sleep(0.005)
    raise AssertionError("the writer never started its temp file")


def test_killed_writer_leaves_previous_receipt_intact(tmp_path: Path) -> None:
    store = ReceiptStore(tmp_path)
    path = store.write(receipt(run_id="run-1"))
    before = path.read_bytes()

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)], env=env, stdout=subprocess.PIPE
    )
    try:
        temp = _wait_for_half_written_temp(store.directory, child)
        child.kill()  # SIGKILL: no cleanup handler of the child runs
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=10)
        assert child.stdout is not None
        child.stdout.close()
    assert child.returncode == -9

    # The target is the old receipt, byte for byte, and parses; the torn temp is still there.
    assert path.read_bytes() == before
    json.loads(path.read_text())
    loaded = store.load("run-1")
    assert loaded is not None and loaded.result.answer == receipt().result.answer
    assert temp.exists() and 0 < temp.stat().st_size < 200_000  # the new one is bigger
    with pytest.raises(json.JSONDecodeError):
        json.loads(temp.read_text())

    # list() never mistakes the leftover for a receipt; prune() removes it once it is stale.
    assert [entry.run_id for entry in store.list()] == ["run-1"]
    store.prune()
    assert temp.exists(), "a young temp may belong to a live writer in another process"
    an_hour_ago = time.time() - 3600
    os.utime(temp, (an_hour_ago, an_hour_ago))
    store.prune()
    assert not temp.exists()
    assert [entry.run_id for entry in store.list()] == ["run-1"]
