"""lsprotocol objects as plain JSON values, for command arguments that travel as `any`."""

from __future__ import annotations

from typing import Any

from lsprotocol import converters

_converter = converters.get_converter()


def unstructure(value: object) -> Any:
    return _converter.unstructure(value)
