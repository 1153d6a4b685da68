from quiz import ranking, round_winners, totals, winners

ROUNDS = [
    {"Owls": 8, "Foxes": 6, "Bees": 9},
    {"Owls": 7, "Foxes": 9, "Bees": 5},
    {"Owls": 3, "Foxes": 3, "Bees": 2, "Moles": 10},
]


def test_totals_add_up_the_rounds():
    assert totals(ROUNDS) == {"Owls": 18, "Foxes": 18, "Bees": 16, "Moles": 10}


def test_best_team_comes_first():
    assert ranking(ROUNDS)[0] == (1, "Owls", 18)


def test_equal_totals_share_a_place():
    assert [place for place, _, _ in ranking(ROUNDS)] == [1, 1, 3, 4]


def test_late_joiner_is_last():
    assert ranking(ROUNDS)[-1] == (4, "Moles", 10)


def test_winners_on_a_tie():
    assert winners(ROUNDS) == ["Owls", "Foxes"]


def test_round_winners():
    assert round_winners(ROUNDS) == ["Bees", "Foxes", "Moles"]
