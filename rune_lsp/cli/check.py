"""`rune-lsp check`: is the configured provider and model usable? Exit 0 when it is."""

from __future__ import annotations

import argparse
import asyncio
import sys

from rune_lsp.cli.errors import EXIT_FAILED, EXIT_OK
from rune_lsp.cli.options import settings_from
from rune_lsp.store.scrub import secrets_in, use_secrets


def run_check(args: argparse.Namespace) -> int:
    from rune_lsp.providers.probe import probe, render_report

    settings, warnings = settings_from(args)
    use_secrets(secrets_in(settings.api_key, settings.resolved_base_url))
    for warning in warnings:
        print(warning, file=sys.stderr)
    report = asyncio.run(probe(settings))
    print(render_report(report))
    return EXIT_OK if report.usable else EXIT_FAILED
