from prog import is_palindrome


def test_is_palindrome():
    assert is_palindrome("Never odd or even")
    assert is_palindrome("abba")
    assert not is_palindrome("abc")
