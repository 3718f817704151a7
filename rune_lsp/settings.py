"""The one settings object (docs/interface.md#settings).

Settings arrive from the editor (initializationOptions, workspace/configuration section `rune`),
from the terminal (flags) and from `RUNE_*` environment variables. A bad value never stops the
server: it is reported with the key that carried it, and that key keeps its default.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from rune_lsp.interface import (
    DEFAULT_FIRST_TURN,
    DEFAULT_TEMPERATURE,
    MAX_CANDIDATES,
    MAX_ITERATIONS,
    FirstTurn,
)
from rune_lsp.store.scrub import scrub_shown
from rune_lsp.text_clip import shorten
from rune_lsp.tools.allowed_commands import valid_pattern

ProviderName = Literal["ollama", "openai", "local"]
LocalModelName = Literal["qwen-1.5b", "qwen-0.5b"]

DEFAULT_BASE_URLS: dict[str, str] = {
    "ollama": "http://127.0.0.1:11434",
    "openai": "http://127.0.0.1:8080/v1",
    # The model server rune starts listens on a port picked when it starts (localmodel/);
    # until then this names the host only.
    "local": "http://127.0.0.1/v1",
}

#: The most tokens a turn asks for when `maxOutputTokens` is unset (the context may allow
#: fewer). About 8 KB of text: an edit, or a whole small file, with room for brief thinking;
#: at the ~30 tokens/s of a 1.5B model on two cores, about a minute. A longer answer is
#: usually a model repeating itself.
DEFAULT_MAX_OUTPUT_TOKENS = 2_048

#: Environment variables that override a key, as docs/interface.md#settings lists them.
ENV_OVERRIDES: dict[str, str] = {
    "provider": "RUNE_PROVIDER",
    "base_url": "RUNE_BASE_URL",
    "model": "RUNE_MODEL",
    "api_key": "RUNE_API_KEY",
    "state_dir": "RUNE_STATE_DIR",
}


def default_state_dir() -> Path:
    # Imported here: platformdirs is only needed once a run stores something.
    from platformdirs import user_state_dir

    return Path(user_state_dir("rune-lsp", appauthor=False))


class Settings(BaseModel):
    """Validated settings; field names are snake_case, the wire keys camelCase."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, frozen=True, extra="ignore"
    )

    provider: ProviderName = Field(
        "ollama",
        description="`ollama` (native `/api/chat`), "
        "`openai` (any OpenAI-compatible `/v1/chat/completions`) or `local` (a llama.cpp "
        "server and Qwen2.5-Coder model that rune provisions and runs itself).",
    )
    base_url: str | None = Field(
        None,
        description="Provider endpoint. Default `http://127.0.0.1:11434` (ollama) or "
        "`http://127.0.0.1:8080/v1` (openai); `local` picks its own.",
    )
    model: str = Field("qwen3:14b", min_length=1, description="Model name.")
    api_key: str | None = Field(
        None, repr=False, description="Sent as a bearer token; never logged or stored."
    )
    max_iterations: int = Field(
        MAX_ITERATIONS,
        ge=1,
        le=MAX_ITERATIONS,
        description=f"Model turns per run, 1..{MAX_ITERATIONS}.",
    )
    repeat_warn_at: int = Field(
        2, ge=2, description="Warn the model on this many identical call+result repeats."
    )
    repeat_block_at: int = Field(
        3, ge=2, description="Block the call (and end the run) on this many identical repeats."
    )
    allowed_write_dirs: tuple[str, ...] | None = Field(
        None,
        description="Directories edits may land in. Default: the workspace folders; without "
        "any, single-file mode (below).",
    )
    check_command: str | None = Field(
        None,
        description="Check command, e.g. `python -m pytest -q`: run before the first model "
        "turn and after each accepted edit, and the verification of the last accepted edit. "
        "With `candidates` above 1 it judges each candidate fix, and its failing output goes "
        "to the model with a failed candidate (or when the model sends the code back "
        "unchanged), not with the task; with `candidates: 1`, or on a test file that names no "
        "module, with the task. On a failing test file the run moves to the module the test "
        "points to and fixes it there (docs/interface.md, 'The fix goes to the module under "
        "test').",
    )
    offer_check: bool = Field(
        True,
        description="Without `checkCommand`: when Fix this is invoked on a test file, or on "
        "code a test file imports, in a workspace with a test runner configured (pytest, or "
        "a `package.json` `test` script), offer that test file as the check for this run; it "
        "runs only if the user accepts it, asked like `run_command`. `false` never offers "
        "one: for a workspace whose tests are slow or touch outside services, or an unattended "
        "`rune-lsp fix` that should not be asked.",
    )
    request_timeout: float = Field(
        120.0, gt=0, le=3600, description="Seconds allowed for one provider call."
    )
    state_dir: str | None = Field(
        None,
        description="Where receipts and pending state live. Default: the platform's user "
        "state directory + `/rune-lsp`.",
    )
    native_tools: bool | None = Field(
        None,
        description="Force (`true`) or disable (`false`) native tool calling. Default: "
        "discovered from the provider, and a model that answers a fix in prose even after "
        "being shown how to call `edit_file` continues with the text protocol, remembered "
        "per model in the state directory (`protocols.json`).",
    )
    first_turn: FirstTurn = Field(
        DEFAULT_FIRST_TURN,
        description="How a Fix this asks the model first. `code`: the first turn offers no "
        "tools and asks for the corrected function in one fenced code block, which becomes a "
        "reviewed `edit_file` (small local models write a corrected function far more "
        "reliably than an `edit_file` call); tools are offered from the second turn on. "
        "`tools`: tools from the first turn, for a model that should read other files first.",
    )
    allowed_commands: tuple[str, ...] = Field(
        (),
        description="Commands `run_command` may run without asking: exact strings, or "
        "prefixes ending in ` *` (`python -m pytest *`; the rest may not hold shell syntax "
        "such as `;`, `|`, `$` or a redirection). The approval prompt can add to it.",
    )
    command_timeout: float = Field(
        120.0, gt=0, le=3600, description="Seconds allowed for `run_command` and the check."
    )
    max_receipts: int = Field(200, ge=1, description="Receipts kept before the oldest go.")
    context_length: int | None = Field(
        None,
        ge=512,
        description="Tokens of context the model works with; the history is fitted to it. "
        "Ollama gets it as `options.num_ctx` (default: the model's trained length, at most "
        "8192: Ollama otherwise serves a smaller window than the model has and silently "
        "drops the start of a long run). Other servers: caps the length they report. "
        "`local`: the context size its model server is started with (default 8192).",
    )
    local_model: LocalModelName = Field(
        "qwen-1.5b",
        description="`local` provider: `qwen-1.5b` (Qwen2.5-Coder-1.5B-Instruct, 1.1 GB) or "
        "`qwen-0.5b` (0.5B, 0.5 GB, for small machines).",
    )
    local_server_path: str | None = Field(
        None,
        description="`local` provider: a llama-server binary to use instead of building one "
        "from llama.cpp's PyPI source package.",
    )
    local_port: int = Field(
        0,
        ge=0,
        le=65535,
        description="`local` provider: the 127.0.0.1 port of its model server; 0 picks a free one.",
    )
    local_threads: int | None = Field(
        None,
        ge=1,
        le=256,
        description="`local` provider: CPU threads of its model server (default: the cores, at "
        "most 4).",
    )
    max_output_tokens: int | None = Field(
        None,
        ge=16,
        le=131_072,
        description="Tokens one model turn may generate, sent as `max_tokens` (OpenAI) or "
        "`options.num_predict` (Ollama). Default: fitted to the context, the quarter of it "
        f"the history leaves free for the answer, at most {DEFAULT_MAX_OUTPUT_TOKENS}. An "
        "answer cut at this limit is not taken as final: the model is told to answer shorter.",
    )
    temperature: float = Field(
        DEFAULT_TEMPERATURE,
        ge=0,
        le=2,
        description="Sampling temperature sent to the provider (`temperature`, Ollama "
        "`options.temperature`); low, for code edits. Retries sample wider (up to 1.0, never "
        "below this): another candidate fix, and a run's first request asked again when "
        "its answer was the code as it is (docs/interface.md).",
    )

    candidates: int = Field(
        4,
        ge=1,
        le=MAX_CANDIDATES,
        description="With a `checkCommand`: at most this many candidate fixes, 1.."
        f"{MAX_CANDIDATES}, are checked in a scratch copy of the workspace before one is "
        "proposed: the first that passes the check, else the one with the fewest failing "
        "tests, unless it fails more than the code as it is (then none). Each candidate is "
        "a model request and counts toward `maxIterations`. `1`: propose the first fix "
        "unchecked, as before.",
    )

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        try:
            parts = urlsplit(value)
            parts.port  # noqa: B018 - raises on a malformed port
        except ValueError as exc:
            raise ValueError(f"is not a valid URL ({exc})") from None
        if not parts.hostname:
            raise ValueError("must name a host, e.g. http://127.0.0.1:11434")
        return value.rstrip("/")

    @field_validator("allowed_commands")
    @classmethod
    def _commands(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in value:
            problem = valid_pattern(pattern)
            if problem is not None:
                raise ValueError(f"{pattern!r}: {problem}")
        return value

    @property
    def resolved_base_url(self) -> str:
        return self.base_url or DEFAULT_BASE_URLS[self.provider]

    @property
    def resolved_state_dir(self) -> Path:
        return Path(self.state_dir).expanduser() if self.state_dir else default_state_dir()


@dataclass(frozen=True)
class SettingsProblem:
    """One rejected value: the wire key, what was wrong, and that the default is kept."""

    key: str
    message: str

    def __str__(self) -> str:
        return f"rune: setting `{self.key}` ignored ({self.message}); using the default."


def load_settings(
    raw: Mapping[str, Any] | None,
    environ: Mapping[str, str] | None = None,
) -> tuple[Settings, list[SettingsProblem]]:
    """Validate editor/CLI values plus env overrides key by key.

    Each bad key is dropped (so its default stands) and reported; the rest still apply.
    """
    values: dict[str, Any] = dict(raw or {})
    env = os.environ if environ is None else environ
    for field_name, var in ENV_OVERRIDES.items():
        if env.get(var):
            values.pop(field_name, None)
            values[to_camel(field_name)] = env[var]
    values = {k: v for k, v in values.items() if v is not None}

    problems: list[SettingsProblem] = []
    settings: Settings | None = None
    while settings is None:
        try:
            settings = Settings.model_validate(values)
        except ValidationError as exc:
            bad = {str(err["loc"][0]) for err in exc.errors() if err["loc"]}
            if not bad:  # an error not tied to a key: keep nothing we cannot vouch for
                return Settings(), problems
            for err in exc.errors():
                key = str(err["loc"][0]) if err["loc"] else "?"
                if key in values:
                    shown = "<hidden>" if key in ("apiKey", "api_key") else values[key]
                    problems.append(SettingsProblem(key, _describe(err["msg"], shown)))
            values = {k: v for k, v in values.items() if k not in bad}
    if settings.repeat_block_at <= settings.repeat_warn_at:
        problems.append(SettingsProblem("repeatBlockAt", "must be greater than repeatWarnAt"))
        settings = settings.model_copy(update={"repeat_warn_at": 2, "repeat_block_at": 3})
    return settings, problems


def _describe(message: str, value: Any) -> str:
    shown = scrub_shown(repr(value))  # a rejected baseUrl may still carry a password
    return f"{message}: got {shorten(shown, 60)}"
