from prog import to_fahrenheit


def test_to_fahrenheit():
    assert to_fahrenheit(0) == 32
    assert to_fahrenheit(100) == 212
    assert to_fahrenheit(-40) == -40
