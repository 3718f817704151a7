from prog import discounted


def test_discounted():
    assert discounted(200, 10) == 180
    assert discounted(50, 0) == 50
