"""The configuration reference is generated from the settings model and must be current."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_configuration_reference_is_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts" / "gen_config_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    current = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert current == module.render(), "run: .venv/bin/python scripts/gen_config_docs.py"
