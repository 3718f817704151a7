"""The terminal's side of the `local` provider: `rune-lsp setup-local`, and what `fix` and
`check` do when the user set no provider and Ollama does not answer.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Coroutine
from typing import Any, TextIO, TypeVar

from rune_lsp.cli.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK
from rune_lsp.cli.options import settings_from
from rune_lsp.cli.progressbar import ProgressBar
from rune_lsp.localmodel.provision import LocalPlan
from rune_lsp.providers.local import LocalHooks
from rune_lsp.providers.resolve import resolve_provider
from rune_lsp.settings import Settings

_T = TypeVar("_T")


def hooks_for(err: TextIO) -> tuple[LocalHooks, ProgressBar]:
    bar = ProgressBar(err)

    def notice(message: str) -> None:
        bar.finish()
        err.write(message + "\n")
        err.flush()

    return LocalHooks(progress=bar, notice=notice), bar


def provider_for_fix(settings: Settings, *, preset: bool | None, err: TextIO) -> Settings | None:
    """The settings `fix` runs with, None when the user must act first (told on `err`).

    `--yes` accepts setting the local model up as it accepts every edit; without it a user on a
    terminal is asked; anyone else is told the command that does it."""
    resolution = asyncio.run(resolve_provider(settings))
    if resolution.note:
        err.write(f"rune-lsp fix: {resolution.note}\n")
    if resolution.offer is None:
        return resolution.settings
    err.write(f"rune-lsp fix: {resolution.offer}\n")
    if preset is True:
        err.write("rune-lsp fix: --yes: setting up the local model now.\n")
        return resolution.local
    if preset is None and _ask_yes("Set up the local model now? [y/N] ", err):
        return resolution.local
    return None


async def _interruptible(work: Coroutine[Any, Any, _T]) -> _T:
    """`work`, cancelled (and so stopping the build or download) by Ctrl-C or SIGTERM."""
    from rune_lsp.cli.interrupt import Interrupt

    task = asyncio.ensure_future(work)
    with Interrupt(sys.stderr).cancelling(task):
        return await task


def _ask_yes(question: str, err: TextIO, fd: int = 0) -> bool:
    """One line from a terminal's stdin; anything but y/yes, or no terminal at all, is no."""
    try:
        if not os.isatty(fd):
            return False
        err.write(question)
        err.flush()
        answer = os.read(fd, 1024).decode(errors="replace").strip().lower()
    except OSError:
        return False
    return answer in ("y", "yes")


def run_setup_local(args: argparse.Namespace) -> int:
    """Provision the local model on purpose: build, download, start, ask it one question."""
    from rune_lsp.providers.probe import probe, render_report

    settings, warnings = settings_from(args)
    for warning in warnings:
        print(warning, file=sys.stderr)
    settings = settings.model_copy(update={"provider": "local"})
    plan = LocalPlan.from_settings(settings)
    print(f"rune-lsp setup-local: {plan.title} on llama.cpp's llama-server; {plan.cost()}.")
    hooks, bar = hooks_for(sys.stderr)
    try:
        report = asyncio.run(_interruptible(probe(settings, local=hooks)))
    except asyncio.CancelledError:
        bar.finish()
        print("rune-lsp setup-local: stopped; what was finished is kept, run it again to resume.")
        return EXIT_INTERRUPTED
    finally:
        bar.finish()
    print(render_report(report))
    if not report.usable:
        return EXIT_FAILED
    print(
        f"Set up: {plan.disk_use()}.\nUse it with `provider` set to `local` (or "
        "RUNE_PROVIDER=local); with no provider set rune uses it whenever Ollama is not running."
    )
    return EXIT_OK
