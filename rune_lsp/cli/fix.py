"""`rune-lsp fix PATH[:LINE[-LINE]]`: the same loop from a terminal, the disk as the document.

Progress goes to stderr; each pending edit is shown as a unified diff and needs a `y` (or
`--yes`); `--json` prints the run result on stdout. Ctrl-C cancels the run cleanly, with a
receipt, and exits 1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import signal
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from rune_lsp.cli.options import settings_from
from rune_lsp.loop.state import (
    Approve,
    Decision,
    PreparedChange,
    PreparedEdit,
    Reject,
    RunEvent,
    RunResult,
    RunState,
)
from rune_lsp.loop.task import FixTask
from rune_lsp.settings import Settings

_TARGET = re.compile(r"^(?P<path>.+?)(?::(?P<start>\d+)(?:-(?P<end>\d+))?)?$")


@dataclass(frozen=True)
class Target:
    path: Path
    start_line: int | None  # 0-based
    end_line: int | None


def parse_target(raw: str) -> Target:
    """`src/app.py`, `src/app.py:12` or `src/app.py:12-20` (1-based lines, as editors show)."""
    match = _TARGET.match(raw)
    if match is None or not match.group("path"):
        raise ValueError(f"not a PATH[:LINE[-LINE]]: {raw!r}")
    start = match.group("start")
    end = match.group("end") or start
    if start is not None and (int(start) < 1 or int(end or start) < int(start)):
        raise ValueError(f"line range must be 1-based and ascending: {raw!r}")
    return Target(
        path=Path(match.group("path")),
        start_line=int(start) - 1 if start else None,
        end_line=int(end) - 1 if end else None,
    )


class TerminalReviewer:
    """Asks `Apply this edit? [y/n/q]` per change; `--yes` / `--no` answer for scripts."""

    def __init__(
        self,
        *,
        answer: bool | None,
        root: Path,
        color: bool,
        stdin: TextIO = sys.stdin,
        out: TextIO = sys.stderr,
    ) -> None:
        self._answer = answer
        self._root = root
        self._color = color
        self._stdin = stdin
        self._out = out
        self.quit = False

    async def decide(self, change: PreparedChange, state: RunState) -> Decision:
        from rune_lsp.review.diff import colorize, unified_diff

        if isinstance(change, PreparedEdit):
            diff = unified_diff(change, display_path=_relative(change.path, self._root))
            self._out.write((colorize(diff) if self._color else diff) + "\n")
            question = "Apply this edit? [y/n/q] "
        else:
            self._out.write(f"$ {change.command}   (in {change.cwd})\n")
            question = "Run this command? [y/n/q] "
        if change.reason:
            self._out.write(f"reason: {change.reason}\n")
        if self.quit:
            return Reject(reason="the user quit the review")
        if self._answer is not None:
            self._out.write(question + ("y (--yes)\n" if self._answer else "n (--no)\n"))
            return Approve() if self._answer else Reject(reason="rejected with --no")
        reply = await self._ask(question)
        if reply == "y":
            return Approve()
        if reply == "q":
            self.quit = True
            return Reject(reason="the user quit the review")
        return Reject(reason="the user answered no")

    async def withdraw(self) -> None:
        self.quit = True

    async def _ask(self, question: str) -> str:
        while True:
            self._out.write(question)
            self._out.flush()
            line = await asyncio.to_thread(self._stdin.readline)
            if not line:  # end of input: never apply what nobody approved
                self._out.write("\n")
                return "n"
            reply = line.strip().lower()[:1]
            if reply in ("y", "n", "q"):
                return reply


class ProgressPrinter:
    def __init__(self, out: TextIO) -> None:
        self._out = out

    def __call__(self, event: RunEvent) -> None:
        from rune_lsp.loop.state import (
            ModelTurnStarted,
            PendingApproval,
            ToolRequested,
            describe_call,
        )

        if isinstance(event, ModelTurnStarted):
            self._out.write(f"{event.step} · asking the model\n")
        elif isinstance(event, ToolRequested):
            self._out.write(f"{event.step} · {describe_call(event.call)}\n")
        elif isinstance(event, PendingApproval):
            self._out.write(f"{event.step} · {len(event.pending)} change(s) to review\n")
        self._out.flush()


def run_fix(args: argparse.Namespace) -> int:
    settings, problems = settings_from(args)
    for problem in problems:
        print(problem, file=sys.stderr)
    try:
        target = parse_target(args.target)
    except ValueError as exc:
        print(f"rune-lsp fix: {exc}", file=sys.stderr)
        return 2
    answer = True if args.yes else False if args.no else None
    result = asyncio.run(_fix(settings, target, args.instruction, answer))
    if args.json:
        print(json.dumps(result.model_dump(mode="json", by_alias=True), indent=2))
    else:
        _print_result(result, sys.stdout)
    return 0 if result.outcome == "completed" else 1


async def _fix(
    settings: Settings, target: Target, instruction: str | None, answer: bool | None
) -> RunResult:
    from rune_lsp.loop.runtime import AgentLoop, LoopConfig
    from rune_lsp.providers import make_model
    from rune_lsp.runner.driver import RunDriver, RunMeta
    from rune_lsp.runner.verify import ShellVerifier
    from rune_lsp.store.receipts import ReceiptStore
    from rune_lsp.tools.documents import DiskDocuments
    from rune_lsp.tools.executor import WorkspaceTools
    from rune_lsp.tools.sandbox import Sandbox

    path = target.path.expanduser().resolve()
    root = _workspace_root(path)
    documents = DiskDocuments()
    text = documents.read_text(path)
    if text is None:
        return RunResult(
            run_id=uuid.uuid4().hex[:12],
            outcome="failed",
            error=f"cannot read {path}",
            iteration_budget=settings.max_iterations,
        )
    sandbox = Sandbox.for_workspace([root], write_dirs=settings.allowed_write_dirs)
    tools = WorkspaceTools(root, sandbox, documents, command_timeout=settings.command_timeout)
    task = FixTask(
        path=_relative(str(path), root),
        text=text,
        start_line=target.start_line,
        end_line=target.end_line,
        instruction=instruction,
    )
    model = make_model(settings)
    loop = AgentLoop(
        model,
        tools,
        LoopConfig(
            max_iterations=settings.max_iterations,
            repeat_warn_at=settings.repeat_warn_at,
            repeat_block_at=settings.repeat_block_at,
        ),
        on_event=ProgressPrinter(sys.stderr),
    )
    verifier = (
        ShellVerifier(settings.check_command, cwd=root, timeout=settings.command_timeout)
        if settings.check_command
        else None
    )
    driver = RunDriver(
        loop=loop,
        reviewer=TerminalReviewer(answer=answer, root=root, color=sys.stderr.isatty()),
        meta=RunMeta(
            provider=settings.provider,
            model=settings.model,
            base_url=settings.resolved_base_url,
            task=task.prompt(),
            document_uri=path.as_uri(),
            document_path=str(path),
            secrets=(settings.api_key,) if settings.api_key else (),
        ),
        receipt_store=ReceiptStore(settings.resolved_state_dir, max_count=settings.max_receipts),
        verifier=verifier,
    )
    run = asyncio.ensure_future(driver.start(uuid.uuid4().hex[:12]))
    _cancel_on_interrupt(run)
    try:
        return await run
    finally:
        close = getattr(model, "aclose", None)
        if close is not None:
            await close()


def _cancel_on_interrupt(run: asyncio.Future[RunResult]) -> None:
    """Ctrl-C cancels the run (which still writes its receipt) instead of killing Python."""
    loop = asyncio.get_running_loop()
    # Not on the main thread or not POSIX: Ctrl-C then ends the process the default way.
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, run.cancel)


def _workspace_root(path: Path) -> Path:
    """The nearest folder holding `.git` (the project), else the file's own folder."""
    for folder in path.parents:
        if (folder / ".git").exists():
            return folder
    return path.parent


def _relative(path: str, root: Path) -> str:
    try:
        return str(Path(path).relative_to(root))
    except ValueError:
        return path


def _print_result(result: RunResult, out: TextIO) -> None:
    if result.answer:
        out.write(result.answer.rstrip() + "\n\n")
    line = f"outcome: {result.outcome} (step {result.iterations_used}/{result.iteration_budget})"
    if result.error:
        line += f": {result.error}"
    out.write(line + "\n")
    for edit in result.edits:
        out.write(f"  {edit.status:<8} {edit.tool} {edit.path}\n")
    if result.verified is not None:
        out.write(f"verified: {str(result.verified).lower()}\n")
    if result.receipt:
        out.write(f"receipt: {result.receipt}\n")
