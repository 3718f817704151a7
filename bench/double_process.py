"""The model double in a process of its own, streaming every answer slowly.

Used where the bench must not share a GIL with the double (responsiveness under load). Prints
`port N` once listening and `chat` for each chat request, then serves until stdin closes.

Run: python bench/double_process.py WORDS CHUNK_DELAY
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.doubles.model_double import ModelDouble, RecordedRequest, Reply, Scripted


def main(argv: list[str]) -> int:
    words, delay = int(argv[0]), float(argv[1])
    reply = Reply(text=" ".join(f"word{i}" for i in range(words)), chunk_delay=delay)

    def responder(request: RecordedRequest) -> Scripted:
        print("chat", flush=True)
        return reply

    with ModelDouble(responder=responder) as double:
        print(f"port {double.port}", flush=True)
        sys.stdin.read()  # until the bench closes our stdin
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
