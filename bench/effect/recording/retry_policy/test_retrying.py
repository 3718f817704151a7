import pytest
from retrying import Client, GaveUp, delays


def test_delays() -> None:
    assert delays(4, 0.1) == pytest.approx([0.1, 0.2, 0.4])
    assert delays(1, 0.1) == []


def test_recovers_after_failures() -> None:
    slept: list[float] = []
    client = Client(failures=2, slept=slept)
    assert client.fetch("k") == "K"
    assert client.calls == 3
    assert slept == pytest.approx([0.1, 0.2])


def test_gives_up() -> None:
    client = Client(failures=10, slept=[])
    with pytest.raises(GaveUp):
        client.fetch("k")
    assert client.calls == 4
