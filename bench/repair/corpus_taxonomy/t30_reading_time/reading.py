"""Reading-time estimate and word statistics shown above blog articles."""

import math

WORDS_PER_MINUTE = 230
PUNCTUATION = ".,;:!?\"'()"


def words(text):
    return [w.strip(PUNCTUATION) for w in text.split(" ") if w.strip(PUNCTUATION)]


def reading_minutes(text, wpm=WORDS_PER_MINUTE):
    return max(1, math.ceil(len(words(text)) / wpm))


def longest_word(text):
    return max(words(text), key=len, default="")


def summary(text):
    return f"{len(words(text))} words, {reading_minutes(text)} min read"
