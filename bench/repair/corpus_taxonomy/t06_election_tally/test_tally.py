from tally import overall, tally, turnout, winner

TABLES = {"hall": ["ana", "Ben", "ana", " "], "bar": ["ben", "ANA", "cleo"]}


def test_tally_normalises_names_and_skips_blanks():
    assert tally(TABLES["hall"]) == {"Ana": 2, "Ben": 1}
    assert tally(["  ana   lee "]) == {"Ana Lee": 1}


def test_overall_adds_up_the_tables():
    assert overall(TABLES) == {"Ana": 3, "Ben": 2, "Cleo": 1}


def test_winner():
    assert winner(overall(TABLES)) == "Ana"


def test_tie_has_no_winner():
    assert winner({"Ana": 2, "Ben": 2}) is None
    assert winner({}) is None


def test_turnout_counts_blank_ballots():
    assert turnout(TABLES, 10) == 70.0
