from prog import to_binary


def test_to_binary():
    assert to_binary(0) == "0"
    assert to_binary(1) == "1"
    assert to_binary(6) == "110"
    assert to_binary(255) == "11111111"
