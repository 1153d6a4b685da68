from vowels import count_vowels, vowel_ratio


def test_lowercase():
    assert count_vowels("banana") == 3


def test_mixed_case():
    assert count_vowels("Apple PIE") == 4


def test_ratio():
    assert vowel_ratio("abcd") == 0.25
