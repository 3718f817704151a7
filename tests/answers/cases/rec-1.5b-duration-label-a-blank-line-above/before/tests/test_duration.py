import pytest

from timeparse.duration import parse_duration


def test_single_digits():
    assert parse_duration("1h5m") == 3900


def test_several_digits():
    assert parse_duration("1h30m") == 5400
    assert parse_duration("90s") == 90


def test_garbage_is_refused():
    with pytest.raises(ValueError):
        parse_duration("ten minutes")
