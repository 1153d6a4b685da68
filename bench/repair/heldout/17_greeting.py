from greeting import greeting


def test_each_count():
    assert greeting("Bo", 0) == "Hello, Bo! You have no new messages."
    assert greeting("Bo", 1) == "Hello, Bo! You have 1 new message."
    assert greeting("Al", 12) == "Hello, Al! You have 12 new messages."
