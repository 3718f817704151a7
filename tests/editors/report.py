"""What an editor driver script saw, as it writes it for the test to check."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from rune_lsp.loop.records import RunResult


class PendingDiagnostic(BaseModel):
    """The diagnostic the editor showed for the pending edit (0-based lines)."""

    model_config = ConfigDict(frozen=True)

    line: int
    end_line: int
    severity: str  # error | warning | information | hint
    source: str | None = None
    message: str
    hunk_id: int | None = None  # the hunk it shows, from the diagnostic's `data`


class DriverReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    step: str  # the step the driver was at when it stopped; "done" when it finished
    error: str | None = None
    offered: list[list[str]] = []  # the titles of each code action menu, in order
    pending: PendingDiagnostic | None = None
    verdict_status: str | None = None  # what rune.acceptEdit / rune.rejectEdit returned
    command_errors: dict[str, str] = {}  # command -> the error message the server answered
    run_result: RunResult | None = None  # what rune.fixThis returned
    cleared: bool = False  # the rune diagnostics were gone after the verdict
    modified_before_save: bool | None = None
    messages: list[str] = []  # the server's window/showMessage texts, in order
    server_log: str = ""  # the server's stderr, where the editor keeps it
    confirmations: list[str] = []  # questions the editor itself asked before applying an edit
    apply_answers: list[bool | None] = []  # `applied` of each answer to workspace/applyEdit
    statuses: list[tuple[str, str | None]] = []  # (command, status) of each accept / reject
    prompts: list[str] = []  # what the snippet asked the user to type (a rejection's reason)
    hunks: list[PendingDiagnostic] = []  # every rune diagnostic when the edit first showed
    floats: list[str | None] = []  # per review step: the proposal as the editor showed it
    inlay_hints: list[tuple[int, str]] = []  # (line, label) once the edit showed, where enabled
    lenses: list[tuple[int, str]] = []  # (line, title) of the code lenses the server answered

    @classmethod
    def read(cls, path: Path) -> DriverReport | None:
        if not path.exists():
            return None
        return cls.model_validate_json(path.read_text(encoding="utf-8"))
