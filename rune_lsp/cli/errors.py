"""Exit statuses of the terminal commands, and the error that means "you asked wrongly"."""

from __future__ import annotations

EXIT_OK = 0  # `fix`: the run completed; `check`: the set-up is usable
EXIT_FAILED = 1  # `fix`: any other outcome; `check`: not usable
EXIT_USAGE = 2  # the command line itself was wrong (argparse uses 2 too)
EXIT_INTERRUPTED = 130  # Ctrl-C outside a run: the shell convention, 128 + SIGINT


class UsageError(Exception):
    """Bad input on the command line (a missing file, a bad range, a bad flag value).

    Its text is one sentence for the user; the command prints it and exits EXIT_USAGE.
    """
