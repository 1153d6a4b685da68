from policy import is_acceptable, problems


def test_good_password():
    assert problems("harbour-lights-42") == []


def test_short_password_is_rejected():
    assert problems("tulip7lamp") == ["must be at least 12 characters"]
    assert not is_acceptable("tulip7lamp")


def test_twelve_characters_is_enough():
    assert is_acceptable("tulip7lampsx")


def test_needs_digit_and_letter():
    assert problems("abcdefghijklm") == ["must contain a digit"]
    assert problems("1234567890123") == ["must contain a letter"]


def test_username_not_allowed():
    assert problems("maria-2024-spring", username="Maria") == ["must not contain the username"]


def test_symbol_only_when_required():
    assert problems("harbour7lights", require_symbol=True) == ["must contain a symbol"]
    assert problems("harbour7lights") == []
