from prog import word_counts


def test_word_counts():
    assert word_counts("a b a") == {"a": 2, "b": 1}
    assert word_counts("") == {}
