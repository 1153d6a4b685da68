from series import drawdown, running_max


def test_running_max_and_drawdown():
    assert running_max([]) == []
    assert running_max([3, 1, 4, 1, 5, 9, 2]) == [3, 3, 4, 4, 5, 9, 9]
    assert running_max([-5, -7, -1]) == [-5, -5, -1]
    assert drawdown([10, 8, 12, 6]) == [0, 2, 0, 6]
