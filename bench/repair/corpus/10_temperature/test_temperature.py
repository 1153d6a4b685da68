import pytest
from temperature import c_to_f, describe, f_to_c


def test_c_to_f():
    assert c_to_f(100) == 212
    assert c_to_f(-40) == -40


def test_f_to_c():
    assert f_to_c(212) == pytest.approx(100)
    assert f_to_c(32) == pytest.approx(0)


def test_describe():
    assert [describe(-5), describe(10), describe(25)] == ["freezing", "cool", "warm"]
