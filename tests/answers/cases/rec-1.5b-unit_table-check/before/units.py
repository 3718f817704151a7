"""Convert lengths and temperatures between units.

Lengths go through metres, using the factor table below; temperatures have
their own formulas because their scales do not share a zero.
"""

from __future__ import annotations

#: Metres per unit.
LENGTH_FACTORS: dict[str, float] = {
    "mm": 0.001,
    "cm": 0.01,
    "m": 1.0,
    "km": 1000.0,
    "in": 0.0254,
    "ft": 0.3048,
    "yd": 0.9144,
    "mi": 1609.344,
}

TEMPERATURE_UNITS = ("C", "F", "K")


class UnknownUnit(ValueError):
    """A unit name that is not in the tables."""


def convert_length(value: float, source: str, target: str) -> float:
    """`value` in `source` units, expressed in `target` units."""
    try:
        metres = value * LENGTH_FACTORS[source]
        return metres / LENGTH_FACTORS[target]
    except KeyError as missing:
        raise UnknownUnit(str(missing)) from None


def to_celsius(value: float, unit: str) -> float:
    """A temperature in C, F or K, as degrees Celsius."""
    if unit == "C":
        return value
    if unit == "F":
        return (value - 32) * 5 / 9
    if unit == "K":
        return value - 273.15
    raise UnknownUnit(unit)


def from_celsius(value: float, unit: str) -> float:
    """Degrees Celsius as a temperature in C, F or K."""
    if unit == "C":
        return value
    if unit == "F":
        return value * 9 / 5 + 32
    if unit == "K":
        return value - 273.15
    raise UnknownUnit(unit)


def convert_temperature(value: float, source: str, target: str) -> float:
    """`value` degrees in `source` units, in `target` units."""
    return from_celsius(to_celsius(value, source), target)


def convert(value: float, source: str, target: str) -> float:
    """Either kind of conversion, chosen by the units' names."""
    if source in TEMPERATURE_UNITS and target in TEMPERATURE_UNITS:
        return convert_temperature(value, source, target)
    return convert_length(value, source, target)
