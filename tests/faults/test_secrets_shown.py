"""Secrets never reach what is shown: stderr, `$/progress`, `window/logMessage`,
`window/showMessage` or `window/showMessageRequest` (receipts were clean already; now everything
shown goes through the same scrubber, `rune_lsp.store.scrub`).

The model puts the API key, the password of `baseUrl` and tokens of well-known shapes into a
command, a search pattern and a path, which progress names; the settings log names the base
URL; a rejected `baseUrl` is quoted in its warning.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from tests.doubles.model_double import ModelDouble, Reply
from tests.e2e.conftest import Launch
from tests.e2e.editor import FakeEditor
from tests.e2e.scenario import calls

API_KEY = "planted-apikey-4f7c2a9d1e"  # no shape of its own: only the setting says it is one
PASSWORD = "hunter2-Pw-77"
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
OPENAI = "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"
SECRETS = (API_KEY, PASSWORD, GITHUB, OPENAI)


def everything_shown(editor: FakeEditor) -> str:
    client = editor.client
    shown: list[Any] = [
        *client.stderr_lines,
        *(m.message for m in client.log_messages),
        *(m.message for m in client.messages),
        *(m.message for m in editor.message_requests),
        *(
            getattr(report, "message", None) or getattr(report, "title", None) or ""
            for reports in client.progress_reports.values()
            for report in reports
        ),
    ]
    return "\n".join(str(item) for item in shown)


def assert_clean(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret} was shown:\n{text}"
        assert secret[:8] not in text or secret.startswith(("ghp_", "sk-")), secret


async def test_secrets_in_tool_calls_and_settings_are_never_shown(
    launch: Launch, double: ModelDouble
) -> None:
    host = double.ollama_url.removeprefix("http://")
    editor = await launch(
        "vscode",
        settings={"apiKey": API_KEY, "baseUrl": f"http://bob:{PASSWORD}@{host}"},
    )
    double.script(
        calls(
            ("run_command", {"command": f"curl -H 'Authorization: Bearer {API_KEY}' {OPENAI}"}),
            ("search", {"pattern": f"{API_KEY}|{GITHUB}|{PASSWORD}"}),
            ("read_file", {"path": f"keys/{API_KEY}/{GITHUB}.txt"}),
        ),
        Reply(text="Done."),
    )
    editor.open("app.py")

    result = await editor.fix("app.py")

    assert result.outcome == "completed", result
    assert [name for name, _ in result.calls()] == ["run_command", "search", "read_file"]
    await editor.wait_for(lambda: editor.logged("rune: ollama model"), "the settings log line")
    shown = everything_shown(editor)
    assert "run_command curl" in shown and "bob:***@" in shown  # the lines are there, masked
    # A command holding the key would be asked about as `***` and run with the key: it is
    # refused instead (docs/interface.md#secrets-in-a-change).
    assert not editor.message_requests
    assert dict(result.calls())["run_command"] == "denied"
    assert_clean(shown)


async def test_a_rejected_base_url_is_not_quoted_with_its_password(launch: Launch) -> None:
    editor = await launch("neovim", settings={"baseUrl": f"htp://bob:{PASSWORD}@example.com"})

    warnings = await editor.wait_for(
        lambda: [m for m in editor.shown_messages() if "baseUrl" in m], "the baseUrl warning"
    )
    assert "htp://bob:***@example.com" in warnings[0]
    await editor.wait_for(lambda: editor.logged("baseUrl"), "the warning in the log")
    assert_clean(everything_shown(editor))
    assert types.MessageType.Warning in [m.type for m in editor.client.messages]
