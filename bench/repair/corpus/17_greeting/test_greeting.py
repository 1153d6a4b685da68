from greeting import greeting


def test_none():
    assert greeting("Ann", 0) == "Hello, Ann! You have no new messages."


def test_one():
    assert greeting("Bob", 1) == "Hello, Bob! You have 1 new message."


def test_many():
    assert greeting("Cy", 3) == "Hello, Cy! You have 3 new messages."
