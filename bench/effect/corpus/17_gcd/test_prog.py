from prog import gcd


def test_gcd():
    assert gcd(12, 18) == 6
    assert gcd(7, 0) == 7
    assert gcd(17, 5) == 1
