import string


def normalize(word):
    return word.strip(string.punctuation).lower()


def word_counts(text):
    """How often each word occurs, case- and punctuation-insensitive."""
    counts = {}
    for raw in text.split():
        word = normalize(raw)
        if word:
            counts[word] = counts.get(word, 1) + 1
    return counts


def most_common(text):
    counts = word_counts(text)
    return max(counts, key=counts.get) if counts else None
