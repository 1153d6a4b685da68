VOWELS = "aeiou"


def count_vowels(text):
    return sum(1 for c in text if c in VOWELS)


def vowel_ratio(text):
    letters = [c for c in text if c.isalpha()]
    return count_vowels(text) / len(letters) if letters else 0.0
