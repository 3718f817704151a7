"""Medians and quartiles of repeated measurements, and ratios between them."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Summary:
    """Median and spread (25th / 75th percentile) of `n` samples, in the samples' unit."""

    median: float
    p25: float
    p75: float
    n: int

    @classmethod
    def of(cls, samples: Sequence[float]) -> Summary:
        if not samples:
            raise ValueError("no samples to summarise")
        ordered = sorted(samples)
        return cls(
            median=statistics.median(ordered),
            p25=percentile(ordered, 25),
            p75=percentile(ordered, 75),
            n=len(ordered),
        )

    @classmethod
    def single(cls, value: float) -> Summary:
        return cls(median=value, p25=value, p75=value, n=1)


def percentile(samples: Sequence[float], pct: float) -> float:
    """Linear-interpolated percentile (numpy's default method), `pct` in 0..100."""
    if not samples:
        raise ValueError("no samples")
    ordered = sorted(samples)
    if len(ordered) == 1:
        return ordered[0]
    position = (len(ordered) - 1) * pct / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def ratio(value: float, reference: float) -> float | None:
    return value / reference if reference > 0 else None
