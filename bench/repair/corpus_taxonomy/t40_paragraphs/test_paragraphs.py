from paragraphs import count_paragraphs, paragraphs, quote, reflow


def test_lines_are_joined_into_paragraphs():
    assert list(paragraphs(["a b", "c", "", "d"])) == ["a b c", "d"]


def test_several_blank_lines_separate_once():
    assert list(paragraphs(["a", "", "", "b", ""])) == ["a", "b"]


def test_count_paragraphs():
    assert count_paragraphs("Hi Ann,\n\nThanks for the notes.\nSee you.") == 2


def test_reflow_wraps_long_lines():
    assert reflow("one two three four", width=9) == "one two\nthree\nfour"


def test_quote_marks_every_line():
    assert quote("x\n\ny\n") == "> x\n>\n> y"
