from prog import count_vowels


def test_count_vowels():
    assert count_vowels("banana") == 3
    assert count_vowels("ApplE") == 2
