from prog import add_tag


def test_add_tag():
    assert add_tag("a") == ["a"]
    assert add_tag("b") == ["b"]
    assert add_tag("c", ["x"]) == ["x", "c"]
