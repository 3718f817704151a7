"""Entry point: the language server on stdio (default), `check`, `fix`, `--version`.

Imports are deferred to the branch that needs them: an editor waits for `initialize` on every
start, and the terminal commands should not pay for pygls.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from rune_lsp import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rune-lsp",
        description="A language server hosting an LLM coding agent with per-edit review.",
    )
    parser.add_argument("--version", action="version", version=f"rune-lsp {__version__}")
    parser.add_argument("--stdio", action="store_true", help="serve LSP over stdio (the default)")
    parser.add_argument(
        "--log-level", default="INFO", help="logging level for stderr (default: INFO)"
    )
    commands = parser.add_subparsers(dest="command")
    from rune_lsp.cli.options import add_check_parser, add_fix_parser

    add_check_parser(commands)
    add_fix_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # Logs go to stderr: stdout carries the JSON-RPC stream.
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, str(args.log_level).upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if args.command == "check":
        from rune_lsp.cli.check import run_check

        return run_check(args)
    if args.command == "fix":
        from rune_lsp.cli.fix import run_fix

        return run_fix(args)
    from rune_lsp.server import create_server

    create_server().start_io()
    return 0


if __name__ == "__main__":
    sys.exit(main())
