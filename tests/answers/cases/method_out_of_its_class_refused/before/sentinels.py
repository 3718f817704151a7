"""Markers for values not given."""

import enum


class Sentinel(enum.Enum):
    UNSET = object()


UNSET = Sentinel.UNSET
"""A value not given."""
