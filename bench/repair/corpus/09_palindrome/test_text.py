from text import clean, is_palindrome, reverse_words


def test_clean():
    assert clean("A b-1!") == ["a", "b", "1"]


def test_palindrome():
    assert is_palindrome("A man, a plan, a canal: Panama")


def test_not_palindrome():
    assert not is_palindrome("hello")


def test_reverse_words():
    assert reverse_words("one two  three") == "three two one"
