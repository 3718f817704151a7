"""The peers, in their own venv (bench/.venv-peers): the language servers of the start-up
comparison, and Aider for the effect bench (bench/effect/).

They never touch the project's venv or its dependencies: the first bench run creates the peer
venv and installs pinned releases from PyPI with pip; later runs reuse it.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PEERS_DIR = Path(__file__).resolve().parent / ".venv-peers"
PINS = ("jedi-language-server==0.47.0", "python-lsp-server==1.15.0")
AIDER_PIN = "aider-chat==0.86.2"


@dataclass(frozen=True)
class Peer:
    name: str
    argv: tuple[str, ...]


def peer_commands(venv: Path = PEERS_DIR) -> tuple[Peer, ...]:
    bin_dir = venv / "bin"
    return (
        Peer("jedi-language-server", (str(bin_dir / "jedi-language-server"),)),
        Peer("pylsp", (str(bin_dir / "pylsp"),)),
    )


def ensure_peers(venv: Path = PEERS_DIR) -> tuple[Peer, ...]:
    """The peers, installing them first when missing; raises RuntimeError naming the failure."""
    peers = peer_commands(venv)
    _ensure([Path(peer.argv[0]) for peer in peers], PINS, venv)
    return peers


def ensure_aider(venv: Path = PEERS_DIR) -> Path:
    """Aider's executable, installing it first when missing; RuntimeError names the failure."""
    aider = venv / "bin" / "aider"
    _ensure([aider], (AIDER_PIN,), venv)
    return aider


def _ensure(executables: list[Path], pins: tuple[str, ...], venv: Path) -> None:
    if all(path.exists() for path in executables):
        return
    print(f"installing peers into {venv}: {' '.join(pins)}", file=sys.stderr)
    # The project venv's interpreter makes a venv on the same base Python, so the peers run on
    # the same Python version as rune-lsp.
    steps = [[str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", *pins]]
    if not (venv / "bin" / "python").exists():
        steps.insert(0, [sys.executable, "-m", "venv", str(venv)])
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, timeout=1200, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(step[:3])} failed: {done.stderr.strip()[-400:]}")
    missing = [path.name for path in executables if not path.exists()]
    if missing:
        raise RuntimeError(f"installed, but no executable for {', '.join(missing)}")
