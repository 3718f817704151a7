"""`python -m rune_lsp.localmodel build|binary-path`: the build for `scripts/llama-server`."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rune_lsp.localmodel import build
from rune_lsp.localmodel.errors import LocalModelError
from rune_lsp.localmodel.progress import Cancel, ProvisionCancelled, Step


def _print_step(step: Step) -> None:
    # Every compile step would be 200 lines; the log has them. Print the milestones.
    if step.unit == "steps" and step.done and step.total and step.done % 20:
        return
    shown = f" {step.done}/{step.total}" if step.total else ""
    print(f"{step.message}{shown}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["binary-path"]:
        print(build.cached_binary())
        return 0
    if args != ["build"]:
        print("usage: python -m rune_lsp.localmodel build|binary-path", file=sys.stderr)
        return 2
    try:
        path = build.ensure_binary(None, progress=_print_step, cancel=Cancel())
    except (LocalModelError, ProvisionCancelled) as exc:
        print(f"rune_lsp.localmodel: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
