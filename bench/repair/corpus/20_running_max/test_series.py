from series import drawdown, running_max


def test_running_max():
    assert running_max([1, 3, 2, 5, 4]) == [1, 3, 3, 5, 5]


def test_empty():
    assert running_max([]) == []


def test_drawdown():
    assert drawdown([10, 12, 9, 13]) == [0, 0, 3, 0]
