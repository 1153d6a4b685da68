from poll import percentage, results, tally, winner

BALLOTS = ["pizza", "sushi", "pizza", " tacos", "", "pizza", "sushi", "tacos "]


def test_tally_ignores_blank_ballots():
    assert tally(BALLOTS) == {"pizza": 3, "sushi": 2, "tacos": 2}


def test_percentage():
    assert percentage(1, 3) == 33.3
    assert percentage(5, 0) == 0.0


def test_winner():
    assert winner(BALLOTS) == "pizza"
    assert winner([]) is None


def test_results():
    assert results(BALLOTS) == [
        ("pizza", 3, 42.9),
        ("sushi", 2, 28.6),
        ("tacos", 2, 28.6),
    ]


def test_results_single_choice():
    assert results(["curry", "curry"]) == [("curry", 2, 100.0)]
