def clean(s):
    """Lower-case letters and digits of s, in order."""
    return [c.lower() for c in s if not c.isalnum()]


def is_palindrome(s):
    chars = clean(s)
    return chars == chars[::-1]


def reverse_words(sentence):
    return " ".join(reversed(sentence.split()))
