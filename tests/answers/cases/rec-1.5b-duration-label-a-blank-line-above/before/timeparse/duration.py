"""Durations written like 1h30m or 45s, as seconds."""

import re

UNITS = {"h": 3600, "m": 60, "s": 1}
_PART = re.compile(r"(\d)([hms])")


def parse_duration(text: str) -> int:
    """Seconds in `text`, a sequence of number-unit parts such as 2h, 15m, 10s."""
    text = text.strip().lower()
    if not text:
        raise ValueError("empty duration")
    total = 0
    position = 0
    for match in _PART.finditer(text):
        if match.start() != position:
            raise ValueError(f"cannot read {text!r}")
        total += int(match.group(1)) * UNITS[match.group(2)]
        position = match.end()
    if position != len(text):
        raise ValueError(f"cannot read {text!r}")
    return total
