from numerals.roman import to_roman


def test_small_numbers():
    assert [to_roman(n) for n in (1, 4, 5, 8)] == ["I", "IV", "V", "VIII"]


def test_nine_and_nineteen():
    assert to_roman(9) == "IX"
    assert to_roman(19) == "XIX"


def test_a_year():
    assert to_roman(1994) == "MCMXCIV"
