import pytest
from flags import FeatureFlags


def test_defaults_apply():
    flags = FeatureFlags({"dark_mode": True, "beta_search": False})
    assert flags.is_enabled("dark_mode")
    assert not flags.is_enabled("beta_search")


def test_overrides_win():
    flags = FeatureFlags({"beta_search": False}, {"beta_search": True})
    assert flags.is_enabled("beta_search")


def test_unknown_flags_are_off():
    assert not FeatureFlags({}).is_enabled("typo_in_flag_name")


def test_rollout_extremes():
    flags = FeatureFlags({"new_checkout": False})
    flags.roll_out("new_checkout", 0)
    assert not any(flags.is_enabled("new_checkout", user) for user in range(50))
    flags.roll_out("new_checkout", 100)
    assert all(flags.is_enabled("new_checkout", user) for user in range(50))


def test_rollout_is_stable_per_user():
    flags = FeatureFlags({})
    flags.roll_out("x", 50)
    assert [flags.is_enabled("x", u) for u in range(20)] == [flags.is_enabled("x", u) for u in range(20)]


def test_bad_percentage():
    with pytest.raises(ValueError):
        FeatureFlags({}).roll_out("x", 120)


def test_enabled_lists_names():
    assert FeatureFlags({"b": True, "a": True, "c": False}).enabled() == ["a", "b"]
