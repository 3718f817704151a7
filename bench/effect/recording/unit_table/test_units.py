import pytest
from units import UnknownUnit, convert


def test_lengths() -> None:
    assert convert(1, "mi", "km") == pytest.approx(1.609344)
    assert convert(12, "in", "ft") == pytest.approx(1.0)


def test_temperatures() -> None:
    assert convert(100, "C", "F") == pytest.approx(212)
    assert convert(0, "C", "K") == pytest.approx(273.15)
    assert convert(32, "F", "K") == pytest.approx(273.15)


def test_unknown() -> None:
    with pytest.raises(UnknownUnit):
        convert(1, "parsec", "m")
