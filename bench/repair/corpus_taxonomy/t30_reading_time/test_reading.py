from reading import longest_word, reading_minutes, summary, words


def test_punctuation_is_not_part_of_words():
    assert words("Hello, world!") == ["Hello", "world"]


def test_words_split_across_lines_and_tabs():
    assert words("first line\nsecond\tline") == ["first", "line", "second", "line"]


def test_short_text_takes_a_minute():
    assert reading_minutes("one") == 1


def test_reading_minutes_round_up():
    assert reading_minutes("word " * 231) == 2


def test_longest_word():
    assert longest_word("a\nbb\nccc") == "ccc"


def test_summary():
    assert summary("Two paragraphs.\n\nOf text.") == "4 words, 1 min read"
