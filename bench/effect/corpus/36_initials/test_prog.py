from prog import initials


def test_initials():
    assert initials("ada king lovelace") == "AKL"
    assert initials("Grace Hopper") == "GH"
