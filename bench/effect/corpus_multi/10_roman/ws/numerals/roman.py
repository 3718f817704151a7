"""Roman numerals."""

_TABLE = [
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"),
    (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
    (10, "X"), (5, "V"), (4, "IV"), (1, "I"),
]


def to_roman(number: int) -> str:
    """`number` (1..3999) in Roman numerals."""
    if not 0 < number < 4000:
        raise ValueError("out of range")
    out = []
    for value, letters in _TABLE:
        while number >= value:
            out.append(letters)
            number -= value
    return "".join(out)
