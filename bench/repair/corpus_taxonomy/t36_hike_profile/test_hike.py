from hike import ascent, descent, naismith_hours, steepest_grade

POINTS = [(0.0, 100), (1.0, 180), (2.0, 150), (3.5, 260), (4.0, 200)]


def test_ascent():
    assert ascent(POINTS) == 190


def test_descent_is_positive():
    assert descent(POINTS) == 90


def test_ascent_minus_descent_is_the_net_change():
    assert ascent(POINTS) - descent(POINTS) == POINTS[-1][1] - POINTS[0][1]


def test_steepest_grade_is_a_drop():
    assert steepest_grade(POINTS) == -12.0


def test_naismith():
    assert naismith_hours(POINTS) == 1.12
