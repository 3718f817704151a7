"""The e2e fixtures (real server over stdio, fake editor, model double) for the fault suite."""

from __future__ import annotations

from tests.e2e.conftest import _spare_servers, double, launch, workspace

__all__ = ["_spare_servers", "double", "launch", "workspace"]
