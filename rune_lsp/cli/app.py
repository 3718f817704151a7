"""Running a terminal command (`check`, `fix`, `setup-local`) from parsed arguments to an exit
status.

Whatever goes wrong ends in one line on stderr and an exit status, never a traceback: usage
errors exit 2, Ctrl-C outside a run 130, anything unexpected 1 (details with DEBUG logging).
"""

from __future__ import annotations

import argparse
import logging
import sys

from rune_lsp.cli.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, UsageError
from rune_lsp.cli.terminal import shown_streams

log = logging.getLogger(__name__)


def run_command(args: argparse.Namespace) -> int:
    with shown_streams():  # what is printed is scrubbed of secrets, whoever prints it
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    try:
        if args.command == "check":
            from rune_lsp.cli.check import run_check

            return run_check(args)
        if args.command == "setup-local":
            from rune_lsp.cli.local import run_setup_local

            return run_setup_local(args)
        from rune_lsp.cli.fix import run_fix

        return run_fix(args)
    except UsageError as exc:
        print(f"rune-lsp {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # before or after a run: inside one, Ctrl-C cancels the run
        print(f"\nrune-lsp {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        log.debug("rune-lsp %s failed", args.command, exc_info=True)
        print(
            f"rune-lsp {args.command}: unexpected error: {type(exc).__name__}: {exc} "
            "(run with --log-level DEBUG for the details)",
            file=sys.stderr,
        )
        return EXIT_FAILED
