from anagram import anagram_groups, is_anagram


def test_anagram():
    assert is_anagram("Listen", "Silent")
    assert is_anagram("abc", "cab")


def test_not_anagram():
    assert not is_anagram("abc", "abd")
    assert not is_anagram("tops", "spotx")


def test_groups():
    assert anagram_groups(["tea", "eat", "tan"]) == [["tea", "eat"], ["tan"]]
