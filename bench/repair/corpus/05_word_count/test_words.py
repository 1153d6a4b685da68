from words import most_common, normalize, word_counts


def test_normalize():
    assert normalize("Hello,") == "hello"


def test_counts():
    assert word_counts("the cat and the hat") == {"the": 2, "cat": 1, "and": 1, "hat": 1}


def test_punctuation():
    assert word_counts("Yes! yes, YES.") == {"yes": 3}


def test_most_common():
    assert most_common("a b b c") == "b"
