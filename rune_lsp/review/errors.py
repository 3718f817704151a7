"""Typed errors of the review package: bad input is reported, never a crash."""

from __future__ import annotations


class ReviewError(ValueError):
    """Input the review code cannot work with."""


class HunkMismatchError(ReviewError):
    """Hunks that were not computed from the text they are applied to or compared with."""


class UnsupportedEncodingError(ReviewError):
    """A position encoding other than utf-8, utf-16 and utf-32."""


class LineSelectionError(ReviewError):
    """A partial accept naming lines a hunk does not have."""
