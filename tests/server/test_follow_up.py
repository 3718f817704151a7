"""A run you can talk to (issue 27 point 2): `rune.fixThis` with `continues` starts a new run
on the earlier run's conversation, with the instruction as the user's next message."""

from __future__ import annotations

from rune_lsp.loop.messages import Message
from rune_lsp.store.transcripts import TranscriptStore
from tests.loop.fakes import answer
from tests.server.conftest import Launch
from tests.server.editor import finished


async def test_a_follow_up_continues_the_conversation_with_its_own_budget(
    launch: Launch,
) -> None:
    # The first run: asked once more for a block on its code-first turn, then its answer stands.
    editor = await launch(
        answer("The sign looks odd."),
        answer("It subtracts; is that meant?"),
        answer("Then add() should add."),
        maxIterations=3,
    )
    editor.open()
    first = await finished(editor.fix(instruction="check the sign")[1])
    assert first["outcome"] == "completed"
    seen = [m.content for m in editor.model.calls[-1].messages]

    second = await finished(
        editor.fix(instruction="No, it is meant to add.", continues=first["runId"])[1]
    )

    assert second["runId"] != first["runId"]
    assert second["iterationBudget"] == 3  # its own, whole budget
    sent = editor.model.calls[2].messages
    assert sent[0].role == "system"
    # The earlier conversation as its model saw it, its answer included, then the instruction.
    contents = [m.content for m in sent]
    assert contents[1 : len(seen)] == seen[1:]
    assert "It subtracts; is that meant?" in contents
    assert sent[-1].role == "user" and sent[-1].content == "No, it is meant to add."


async def test_a_run_of_an_earlier_server_is_continued_from_its_kept_transcript(
    launch: Launch,
) -> None:
    editor = await launch(answer("Added."))
    editor.open()
    earlier = (
        Message(role="user", content="Task: check the sign"),
        Message(role="assistant", content="It subtracts; is that meant?"),
    )
    TranscriptStore(editor.state_dir).save("0123456789ab", earlier, secrets=[])

    result = await finished(editor.fix(instruction="make it add", continues="0123456789ab")[1])

    assert result["outcome"] == "completed"
    sent = [m.content for m in editor.model.calls[0].messages]
    assert sent[1:] == ["Task: check the sign", "It subtracts; is that meant?", "make it add"]


async def test_an_unknown_run_cannot_be_continued(launch: Launch) -> None:
    editor = await launch(answer("unused"))
    editor.open()

    result = await finished(editor.fix(instruction="go on", continues="ffffffffffff")[1])

    assert result["outcome"] == "failed"
    assert "run ffffffffffff cannot be continued: it is unknown or expired" in result["error"]
    assert editor.model.calls == []
