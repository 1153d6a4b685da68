import pytest
from leaderboard import Leaderboard


@pytest.fixture
def board():
    b = Leaderboard()
    for player, score in [("kim", 7), ("lee", 10), ("kim", 12), ("ana", 9), ("lee", 4), ("ana", 10)]:
        b.record(player, score)
    return b


def test_games_played(board):
    assert board.games_played("kim") == 2
    assert board.games_played("nobody") == 0


def test_personal_best_is_highest_score(board):
    assert board.personal_best("kim") == 12
    assert board.personal_best("lee") == 10


def test_unknown_player(board):
    with pytest.raises(KeyError):
        board.personal_best("zoe")


def test_ranking_orders_best_first_then_name(board):
    assert board.ranking() == [("kim", 12), ("ana", 10), ("lee", 10)]


def test_top(board):
    assert board.top(2) == ["kim", "ana"]


def test_negative_score_rejected(board):
    with pytest.raises(ValueError):
        board.record("kim", -1)
