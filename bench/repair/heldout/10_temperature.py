from temperature import c_to_f, describe, f_to_c


def test_round_trips_and_fixed_points():
    assert f_to_c(32) == 0
    assert f_to_c(212) == 100
    assert f_to_c(-40) == -40
    for c in (-10, 0, 37, 100):
        assert abs(f_to_c(c_to_f(c)) - c) < 1e-9
    assert [describe(-1), describe(0), describe(19), describe(20)] == ["freezing", "freezing", "cool", "warm"]
