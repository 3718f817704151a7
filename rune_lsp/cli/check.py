"""`rune-lsp check`: is the configured provider and model usable? Exit 0 when it is."""

from __future__ import annotations

import argparse
import asyncio
import sys

from rune_lsp.cli.options import settings_from


def run_check(args: argparse.Namespace) -> int:
    from rune_lsp.providers.probe import probe, render_report

    settings, problems = settings_from(args)
    for problem in problems:
        print(problem, file=sys.stderr)
    report = asyncio.run(probe(settings))
    print(render_report(report))
    return 0 if report.usable else 1
