from text import clean, is_palindrome, reverse_words


def test_letters_and_digits_only_case_folded():
    assert clean("A1, b!") == ["a", "1", "b"]
    assert clean("?!") == []
    assert is_palindrome("Was it a car or a cat I saw?")
    assert is_palindrome("No 'x' in Nixon")
    assert not is_palindrome("Hello, world")
    assert not is_palindrome("ab!")
    assert reverse_words("one two  three") == "three two one"
