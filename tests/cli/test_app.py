"""The command runner's last line of defence: one line and an exit status, never a traceback."""

from __future__ import annotations

import asyncio
import io
import signal
from collections.abc import Sequence

import pytest

from rune_lsp import __version__
from rune_lsp.__main__ import build_parser, main
from rune_lsp.cli import fix as fix_module
from rune_lsp.cli.app import run_command
from rune_lsp.cli.errors import UsageError
from rune_lsp.cli.interrupt import Interrupt, InterruptibleCheck
from rune_lsp.runner.verify import CheckOutcome


def _raising(exc: BaseException) -> object:
    def run_fix(args: object) -> int:
        raise exc

    return run_fix


@pytest.mark.parametrize(
    ("exc", "code", "message"),
    [
        (UsageError("no such file: x.py"), 2, "rune-lsp fix: no such file: x.py\n"),
        (KeyboardInterrupt(), 130, "\nrune-lsp fix: interrupted\n"),
        (
            RuntimeError("boom"),
            1,
            "rune-lsp fix: unexpected error: RuntimeError: boom "
            "(run with --log-level DEBUG for the details)\n",
        ),
    ],
)
def test_failures_become_exit_statuses(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    exc: BaseException,
    code: int,
    message: str,
) -> None:
    monkeypatch.setattr(fix_module, "run_fix", _raising(exc))
    assert run_command(build_parser().parse_args(["fix", "x.py"])) == code
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", message)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"rune-lsp {__version__}\n"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
async def test_a_signal_cancels_the_run_once(signum: signal.Signals) -> None:
    run: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    out = io.StringIO()
    interrupt = Interrupt(out)
    with interrupt.cancelling(run):
        # Installed: a signal now reaches the event loop instead of raising or killing.
        assert signal.getsignal(signum) not in (signal.default_int_handler, signal.SIG_DFL)
        signal.raise_signal(signum)
        signal.raise_signal(signum)
        await asyncio.sleep(0.05)
        assert run.cancelled()
    assert out.getvalue().count("cancelling the run") == 1
    assert interrupt.requested == signum
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the default is back


class _SlowCheck:
    async def verify(self, changed_paths: Sequence[str]) -> CheckOutcome:
        await asyncio.sleep(30)
        raise AssertionError("not reached")


async def test_a_check_stopped_by_the_user_leaves_the_run_unverified() -> None:
    interrupt = Interrupt(io.StringIO())
    check = InterruptibleCheck(_SlowCheck(), command="pytest -q", interrupt=interrupt)
    verifying = asyncio.ensure_future(check.verify(["a.py"]))
    await asyncio.sleep(0)
    interrupt.requested = signal.SIGINT
    verifying.cancel()
    outcome = await verifying
    assert not outcome.trustworthy
    assert outcome.note == "it was stopped (SIGINT) before it finished"
    assert (outcome.record.command, outcome.record.exit_code) == ("pytest -q", -2)


async def test_a_check_cancelled_by_anyone_else_stays_cancelled() -> None:
    check = InterruptibleCheck(_SlowCheck(), command="x", interrupt=Interrupt(io.StringIO()))
    verifying = asyncio.ensure_future(check.verify(["a.py"]))
    await asyncio.sleep(0)
    verifying.cancel()
    with pytest.raises(asyncio.CancelledError):
        await verifying
