from prog import Counter


def test_counter():
    counter = Counter()
    counter.increment()
    assert counter.increment() == 2
    assert counter.count == 2
