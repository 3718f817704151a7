from __future__ import annotations

from pathlib import Path

from store_samples import API_KEY, CHECK, STARTED, pending_run, run_result, run_state

from rune_lsp.loop.messages import Message, ToolCall
from rune_lsp.loop.records import CallRecord
from rune_lsp.loop.state import ToolOutcome
from rune_lsp.store.pending import PendingStore
from rune_lsp.store.receipt import Receipt
from rune_lsp.store.receipt_builder import build_receipt
from rune_lsp.store.receipts import ReceiptStore
from rune_lsp.store.scrub import MASK, MIN_FRAGMENT, Scrubber
from rune_lsp.store.urls import mask_url_password


def _leaky_receipt(secret: str) -> Receipt:
    """A run where the key leaked everywhere a run's text can carry it."""
    state = run_state()
    state.call_log.append(
        CallRecord(
            call_id="call-3",
            name="read_file",
            arguments=f'{{"path": ".env", "note": "{secret}"}}',
            status="ok",
            digest=f"OPENAI_API_KEY={secret}\nDEBUG=1\n",
            iteration=2,
            started_at=0.0,
            duration_ms=1.0,
        )
    )
    state.diffs["edit-1"] = f"+KEY = '{secret}'\n"
    result = run_result().model_copy(
        update={"answer": f"I found the key {secret} in .env.", "error": f"auth {secret}"}
    )
    return build_receipt(
        result,
        secrets=[secret, None, ""],
        provider="openai",
        model="m",
        base_url="https://127.0.0.1:8080/v1",
        started_at=STARTED,
        ended_at=STARTED,
        state=state,
        check=CHECK.model_copy(update={"stdout_tail": f"env: {secret}", "stderr_tail": secret}),
        document="file:///ws/.env",
        task=f"why does {secret} fail?",
    )


def test_key_never_reaches_the_receipt_file(tmp_path: Path) -> None:
    built = _leaky_receipt(API_KEY)
    store = ReceiptStore(tmp_path)
    written = store.write(built).read_text()
    markdown = store.markdown_path(built.run_id).read_text()
    for text in (written, markdown, built.to_json()):
        assert API_KEY not in text
        assert API_KEY[:MIN_FRAGMENT] not in text
    # Masked where it was, the rest of the text kept.
    assert built.tool_calls[-1].digest == f"OPENAI_API_KEY={MASK}\nDEBUG=1\n"
    assert built.result.answer == f"I found the key {MASK} in .env."
    assert built.check is not None and built.check.stderr_tail == MASK
    assert built.edits[0].diff == f"+KEY = '{MASK}'\n"
    assert built.task == f"why does {MASK} fail?"


def test_key_cut_in_half_by_an_earlier_clip_is_masked() -> None:
    head, tail = API_KEY[:20], API_KEY[-12:]
    scrub = Scrubber([API_KEY])
    assert scrub.text(f"...{head}\n[output truncated]") == f"...{MASK}\n[output truncated]"
    assert (
        scrub.text(f"[earlier output elided]{tail} done") == f"[earlier output elided]{MASK} done"
    )
    # Pieces too short to matter are ordinary text.
    assert scrub.text(API_KEY[: MIN_FRAGMENT - 1]) == API_KEY[: MIN_FRAGMENT - 1]


def test_key_inside_json_text_is_masked() -> None:
    secret = 'pa"ss\\word-0123456789'
    escaped = '{"key": "pa\\"ss\\\\word-0123456789"}'
    assert Scrubber([secret]).text(escaped) == f'{{"key": "{MASK}"}}'


def test_short_secret_cannot_break_fixed_vocabulary() -> None:
    # A local server's key can be tiny; statuses and outcomes must survive it.
    built = _leaky_receipt("ok")
    assert built.tool_calls[0].status == "ok"
    assert built.outcome == "completed"
    assert built.result.answer == f"I found the key {MASK} in .env."  # free text is masked
    assert Receipt.model_validate_json(built.to_json()) == built


def test_no_secrets_change_nothing() -> None:
    scrub = Scrubber([None, ""])
    assert not scrub
    state = run_state()
    assert scrub.model(state) is state
    assert scrub.text("anything") == "anything"


def test_overlapping_secrets_mask_once() -> None:
    scrub = Scrubber(["abcdefghijkl", "ghijklmnopqr"])
    assert scrub.text("x abcdefghijklmnopqr y") == f"x {MASK} y"


def test_pending_state_is_scrubbed_everywhere(tmp_path: Path) -> None:
    record = pending_run()
    record.state.messages.append(Message(role="tool", content=f"KEY={API_KEY}", name="read_file"))
    record.state.turn.calls.append(
        ToolCall(id="c9", name="run_command", arguments={"command": f"echo {API_KEY}"})
    )
    record.state.turn.results["c9"] = ToolOutcome(status="ok", content=API_KEY)
    store = PendingStore(tmp_path)
    text = store.save(record, secrets=[API_KEY]).read_text()
    assert API_KEY not in text and API_KEY[:MIN_FRAGMENT] not in text
    loaded = store.load("run-1")
    assert loaded is not None
    assert loaded.state.messages[-1].content == f"KEY={MASK}"
    assert loaded.state.turn.calls[-1].arguments == {"command": f"echo {MASK}"}
    assert loaded.state.turn.results["c9"] == ToolOutcome(status="ok", content=MASK)
    assert loaded.state.turn.pending == record.state.turn.pending  # the rest is untouched


def test_url_passwords_are_masked() -> None:
    assert mask_url_password("http://me:hunter2@host:8080/v1") == "http://me:***@host:8080/v1"
    assert mask_url_password("http://me@host/v1") == "http://me@host/v1"
    assert mask_url_password("http://[::1/broken") == "http://[::1/broken"
    built = build_receipt(
        run_result(),
        secrets=[],
        provider="openai",
        model="m",
        base_url="https://user:s3cr3t@proxy.example/v1",
        started_at=STARTED,
        ended_at=STARTED,
    )
    assert built.base_url == "https://user:***@proxy.example/v1"
    assert "s3cr3t" not in built.to_json()


def test_secrets_of_a_configuration_are_the_key_and_the_url_credentials() -> None:
    from rune_lsp.store.scrub import secrets_in

    assert secrets_in("k-123", "http://bob:p%40ss-word@h/v1") == (
        "k-123",
        "p%40ss-word",
        "p@ss-word",
    )
    assert secrets_in(None, "https://tok-en-1234@h") == ("tok-en-1234",)  # a user name alone
    assert secrets_in("", "http://bob:pw@h") == ()  # too short to mask on its own (see shapes)
    assert secrets_in(None, "http://[::1") == ()  # not a URL: nothing to find, no error


def test_shown_text_loses_well_known_token_shapes_too() -> None:
    scrub = Scrubber(["configured-secret"], shapes=True)
    github = "ghp_" + "a" * 36
    assert (
        scrub.text(f"git push https://{github}@github.com x") == "git push https://***@github.com x"
    )
    assert scrub.text("key sk-proj-abcdefghijklmnopqrst!") == f"key {MASK}!"
    assert scrub.text("AKIAABCDEFGHIJKLMNOP") == MASK
    assert scrub.text("http://bob:pw@host/v1") == f"http://bob:{MASK}@host/v1"
    assert scrub.text("Authorization: Bearer abc.def-123") == f"Authorization: Bearer {MASK}"
    assert scrub.text("use configured-secret here") == f"use {MASK} here"
    # Ordinary words that merely start alike stay.
    assert (
        scrub.text("risk-assessment-module and disk-cache")
        == "risk-assessment-module and disk-cache"
    )


def test_stored_models_keep_token_shapes_the_user_wrote() -> None:
    # A paused run may write its text back into a file: only configured secrets are masked there.
    token = "sk-proj-" + "b" * 24
    answer = run_result().model_copy(update={"answer": f"token {token}"})
    assert Scrubber(["other-secret"]).model(answer).answer == f"token {token}"


def test_log_records_are_scrubbed_message_arguments_and_traceback() -> None:
    import io
    import logging

    from rune_lsp.store.scrub import scrub_logs, use_secrets

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        scrub_logs()
        use_secrets(["planted-secret-42"])
        log = logging.getLogger("tests.scrub")
        log.warning("calling %s with %r", "http://u:pw@h", {"key": "planted-secret-42"})
        try:
            raise RuntimeError("planted-secret-42 refused")
        except RuntimeError:
            log.exception("failed")
    finally:
        use_secrets(())
        root.removeHandler(handler)
    logged = stream.getvalue()
    assert "calling http://u:***@h with {'key': '***'}" in logged
    assert "RuntimeError: *** refused" in logged
    assert "planted-secret-42" not in logged and "pw@" not in logged
