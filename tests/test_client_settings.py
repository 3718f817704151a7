"""The VS Code client's `rune.*` settings agree with the server's Settings.

VS Code sends these keys, with the defaults and limits package.json declares, as the `rune`
section; a key or bound that drifts from Settings is dropped or reported as a bad value.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import annotated_types
import pytest
from pydantic.fields import FieldInfo

from rune_lsp.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_JSON = ROOT / "client-vscode" / "package.json"


def _client_settings() -> dict[str, dict[str, Any]]:
    manifest = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))
    properties: dict[str, dict[str, Any]] = manifest["contributes"]["configuration"]["properties"]
    # rune.server.* say how the client starts the server, rune.review.* how it shows edits;
    # settings.ts never sends them.
    return {
        name.removeprefix("rune."): spec
        for name, spec in properties.items()
        if not name.startswith(("rune.server.", "rune.review."))
    }


CLIENT_SETTINGS = _client_settings()
FIELDS_BY_ALIAS: dict[str, FieldInfo] = {
    field.alias: field for field in Settings.model_fields.values() if field.alias is not None
}


def _bound(field: FieldInfo, kind: type[Any], attribute: str) -> Any:
    found = [getattr(item, attribute) for item in field.metadata if isinstance(item, kind)]
    return found[0] if found else None


def test_the_client_declares_settings() -> None:
    assert CLIENT_SETTINGS, f"no rune.* settings found in {PACKAGE_JSON}"


@pytest.mark.parametrize("key", sorted(CLIENT_SETTINGS))
def test_client_setting_matches_the_server(key: str) -> None:
    spec = CLIENT_SETTINGS[key]
    assert key in FIELDS_BY_ALIAS, f"rune.{key} is not a Settings key"
    field = FIELDS_BY_ALIAS[key]

    # settings.ts sends an empty string as null, which the server reads as "keep the default".
    client_default = None if spec.get("default") in ("", None) else spec.get("default")
    if isinstance(client_default, list):  # JSON's array is the model's tuple
        client_default = tuple(client_default)
    assert client_default == field.default, f"rune.{key} default"

    assert spec.get("minimum") == _bound(field, annotated_types.Ge, "ge"), f"rune.{key} minimum"
    assert spec.get("maximum") == _bound(field, annotated_types.Le, "le"), f"rune.{key} maximum"

    if "enum" in spec:
        assert set(spec["enum"]) == set(get_args(field.annotation)), f"rune.{key} enum"
