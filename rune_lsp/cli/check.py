"""`rune-lsp check`: is the configured provider and model usable? Exit 0 when it is."""

from __future__ import annotations

import argparse
import asyncio
import sys

from rune_lsp.cli.errors import EXIT_FAILED, EXIT_OK
from rune_lsp.cli.options import settings_from
from rune_lsp.store.scrub import secrets_in, use_secrets


def run_check(args: argparse.Namespace) -> int:
    from rune_lsp.cli.local import hooks_for
    from rune_lsp.localmodel.provision import LocalPlan
    from rune_lsp.providers.probe import probe, render_report
    from rune_lsp.providers.resolve import resolve_provider

    settings, warnings = settings_from(args)
    use_secrets(secrets_in(settings.api_key, settings.resolved_base_url))
    for warning in warnings:
        print(warning, file=sys.stderr)
    resolution = asyncio.run(resolve_provider(settings))
    if resolution.note:
        print(f"rune-lsp check: {resolution.note}")
    settings = resolution.settings
    if settings.provider == "local" and not LocalPlan.from_settings(settings).provisioned:
        plan = LocalPlan.from_settings(settings)
        print(
            f"rune-lsp check: local ({plan.title}) is not set up yet: `rune-lsp setup-local` "
            f"{plan.cost()}.\nNot usable."
        )
        return EXIT_FAILED
    hooks, bar = hooks_for(sys.stderr)
    try:
        report = asyncio.run(probe(settings, local=hooks))
    finally:
        bar.finish()
    print(render_report(report))
    if resolution.offer:
        print(f"Instead: {resolution.offer}")
    return EXIT_OK if report.usable else EXIT_FAILED
