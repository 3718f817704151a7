from prog import format_duration


def test_format_duration():
    assert format_duration(65) == "1:05"
    assert format_duration(600) == "10:00"
    assert format_duration(59) == "0:59"
