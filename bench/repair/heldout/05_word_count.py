from words import most_common, word_counts


def test_counts_and_the_most_common_word():
    assert word_counts("a b a, A! c") == {"a": 3, "b": 1, "c": 1}
    assert word_counts("") == {}
    assert word_counts("... !!") == {}
    assert most_common("x y y z") == "y"
    assert most_common("") is None
