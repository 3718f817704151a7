"""What a person sees of `rune-lsp fix` is what runs: the model's control sequences are shown,
never obeyed (issue 25, item 1).

Each test renders the CLI's real output through a VT emulator (pyte), as a terminal with the
tty's usual newline translation would show it, and compares the screen with what ran or landed.
"""

from __future__ import annotations

from pathlib import Path

import pyte

from rune_lsp.controls import visible
from tests.cli.conftest import RunCli
from tests.doubles.model_double import ModelDouble, Reply
from tests.e2e.scenario import calls, edit

ESC = "\x1b"
COLUMNS = 80  # what the CLI assumes when its output is no terminal


def screen_of(output: str) -> list[str]:
    """The rows a terminal shows after `output`, trailing blanks dropped."""
    rows = output.count("\n") + 10
    screen = pyte.Screen(COLUMNS, rows)
    pyte.Stream(screen).feed(output.replace("\n", "\r\n"))  # the tty's onlcr
    return [row.rstrip() for row in screen.display]


def command_as_seen(rows: list[str]) -> str:
    """The command the review asked about, as read off the screen: its `$ ` row and the `> `
    rows that continue it."""
    start = max(n for n, row in enumerate(rows) if row.startswith("$ "))
    seen = [rows[start][2:]]
    for row in rows[start + 1 :]:
        if not row.startswith(">"):
            break
        seen.append(row[2:])
    return "".join(seen)


def words(text: str) -> list[str]:
    return text.split()


def test_a_command_hidden_behind_erase_sequences_is_seen_whole(
    rune: RunCli, double: ModelDouble, workspace: Path
) -> None:
    outside = workspace.parent / "outside"
    outside.mkdir()
    command = (
        "python3 -c pass"
        + " " * 120
        + f"; touch ../outside/PWNED #{ESC}[2K{ESC}[1G$ python3 -c pass"
    )
    double.script(calls(("run_command", {"command": command})), Reply(text="Ran it."))

    finished = rune("fix", "app.py", "--yes")

    assert (outside / "PWNED").exists()  # what ran: the touch too
    rows = screen_of(finished.stderr)
    seen = command_as_seen(rows)
    assert words(seen) == words(visible(command))
    assert "\\x1b[2K\\x1b[1G$ python3 -c pass" in seen
    assert ESC not in finished.stderr


def test_a_diff_line_that_erases_itself_is_seen(
    rune: RunCli, double: ModelDouble, workspace: Path
) -> None:
    hidden = f"    __import__('os').system('true')  # {ESC}[2K{ESC}[1A"
    double.script(
        edit("app.py", "    return a - b\n", f"    return a + b\n{hidden}\n"),
        Reply(text="Fixed."),
    )

    finished = rune("fix", "app.py", "--yes")

    landed = (workspace / "app.py").read_text(encoding="utf-8")
    assert hidden in landed
    rows = screen_of(finished.stderr)
    [shown] = [row for row in rows if "__import__('os').system('true')" in row]
    assert shown == "+" + visible(hidden)


def test_the_answer_cannot_write_the_clipboard_or_move_the_cursor(
    rune: RunCli, double: ModelDouble
) -> None:
    osc52 = f"{ESC}]52;c;cm0gLXJmIH4K\x07"
    answer = f"All good.{osc52}\r{ESC}[2KNothing was changed.\x9b31m"
    double.script(calls(("read_file", {"path": "app.py"})), Reply(text=answer))

    finished = rune("fix", "app.py", "--no")

    assert ESC not in finished.stdout and "\x07" not in finished.stdout
    assert "\x9b" not in finished.stdout
    rows = screen_of(finished.stdout)
    assert visible(answer) in rows
    assert "\\x1b]52;c;cm0gLXJmIH4K\\x07\\x0d\\x1b[2KNothing was changed.\\x9b31m" in rows[0]


def test_json_output_escapes_every_control_character(rune: RunCli, double: ModelDouble) -> None:
    double.script(
        calls(("read_file", {"path": "app.py"})), Reply(text=f"Done.{ESC}]52;c;eA==\x07\x9b")
    )

    finished = rune("fix", "app.py", "--no", "--json")

    assert not any((ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) < 0xA0 for c in finished.stdout)
    assert "\\u001b]52;c;eA==\\u0007\\u009b" in finished.stdout
