"""Read an INI-like settings file into typed values, with defaults and validation.

The format, as users write it:

    [section]
    key = value        ; a comment
    other = "quoted ; not a comment"

Keys outside any section belong to the section named "main".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

#: How each known key is parsed, and its default when absent.
SCHEMA: dict[str, tuple[str, Any]] = {
    "main.name": ("str", "untitled"),
    "main.debug": ("bool", False),
    "server.port": ("int", 8080),
    "server.host": ("str", "127.0.0.1"),
    "server.timeout": ("float", 30.0),
    "paths.include": ("list", []),
}

TRUE_WORDS = frozenset({"1", "yes", "true", "on"})
FALSE_WORDS = frozenset({"0", "no", "false", "off"})

ERROR_HELP = """
Each line is one of:
[section]
key = value
; a comment
"""


class SettingsError(ValueError):
    """A line that cannot be read; the message names its number."""

    def __init__(self, number: int, message: str) -> None:
        super().__init__(f"line {number}: {message}{ERROR_HELP}")
        self.number = number


def parse_bool(text: str) -> bool:
    word = text.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(f"not a yes/no value: {text!r}")


def parse_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


PARSERS: dict[str, Callable[[str], Any]] = {
    "str": str,
    "int": int,
    "float": float,
    "bool": parse_bool,
    "list": parse_list,
}


@dataclass
class Settings:
    """Values by dotted key (`"server.port"`), defaults filled in."""

    values: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def section(self, name: str) -> dict[str, Any]:
        prefix = name + "."
        return {k[len(prefix) :]: v for k, v in self.values.items() if k.startswith(prefix)}

    @classmethod
    def parse(cls, lines: Iterable[str]) -> Settings:
        """Settings from the lines of a file; unknown keys are kept as strings."""
        section = "main"
        raw: dict[str, tuple[int, str]] = {}

        def strip_comment(line: str) -> str:
            quoted = False
            for index, char in enumerate(line):
                if char == '"':
                    quoted = not quoted
                elif char == ";" and not quoted:
                    return line[:index]
            return line

        def unquote(value: str) -> str:
            if len(value) >= 2 and value[0] == value[-1] == '"':
                return value[1:]
            return value

        for number, line in enumerate(lines, start=1):
            text = strip_comment(line).strip()
            if not text:
                continue
            if text.startswith("[") and text.endswith("]"):
                section = text[1:-1].strip()
                continue
            key, equals, value = text.partition("=")
            if not equals:
                raise SettingsError(number, f"expected key = value, got {text!r}")
            raw[f"{section}.{key.strip()}"] = (number, unquote(value.strip()))

        values: dict[str, Any] = {key: default for key, (_, default) in SCHEMA.items()}
        for key, (number, text) in raw.items():
            kind = SCHEMA[key][0] if key in SCHEMA else "str"
            try:
                values[key] = PARSERS[kind](text)
            except ValueError as error:
                raise SettingsError(number, f"{key}: {error}") from None
        return cls(values)


def load(path: str) -> Settings:
    with open(path, encoding="utf-8") as handle:
        return Settings.parse(handle)
