"""Entry point: the language server on stdio (default), `check`, `fix`, `setup-local`,
`--version`.

Imports are deferred to the branch that needs them: an editor waits for `initialize` on every
start, and the terminal commands should not pay for pygls.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from collections.abc import Sequence

from rune_lsp import __version__


def build_parser() -> argparse.ArgumentParser:
    """The whole command line, `check` and `fix` included (their flags need pydantic)."""
    from rune_lsp.cli.options import add_check_parser, add_fix_parser, add_setup_local_parser

    parser = _top_parser(add_help=True)
    commands = parser.add_subparsers(dest="command")
    add_check_parser(commands)
    add_fix_parser(commands)
    add_setup_local_parser(commands)
    return parser


def _top_parser(*, add_help: bool) -> argparse.ArgumentParser:
    from rune_lsp.cli.options import add_log_level

    parser = argparse.ArgumentParser(
        prog="rune-lsp",
        description="A language server hosting an LLM coding agent with per-edit review.",
        add_help=add_help,
    )
    parser.add_argument("--version", action="version", version=f"rune-lsp {__version__}")
    parser.add_argument("--stdio", action="store_true", help="serve LSP over stdio (the default)")
    add_log_level(parser, default="")
    return parser


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The server's own flags first: an editor starting the server should not pay for the
    subcommands' parsers. Anything else (a subcommand, `--help`, a typo) goes to the full
    parser, which also gives the usage errors."""
    args, rest = _top_parser(add_help=False).parse_known_args(argv)
    if not rest:
        args.command = None
        return args
    return build_parser().parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    # Logs go to stderr: stdout carries the JSON-RPC stream (or the `--json` result). The
    # terminal commands keep it quiet unless asked, so progress and questions stay readable.
    level = args.log_level or ("WARNING" if args.command else "INFO")
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, level),
        # A terminal user reads the odd warning between progress lines: no timestamps there.
        format="%(levelname)s %(name)s: %(message)s"
        if args.command
        else "%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    from rune_lsp.store.scrub import scrub_logs

    scrub_logs()  # no secret in a log line, whoever logs it
    if args.command:
        from rune_lsp.cli.app import run_command

        return run_command(args)
    from rune_lsp.server import create_server

    # SIGTERM (an editor stopping its server) ends it like `exit`: the server shuts down and
    # gives back its lease on the local model server, which stops when nobody else uses it.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    create_server().start_io()
    return 0


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    sys.exit(main())
