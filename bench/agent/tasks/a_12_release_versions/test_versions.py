from versions import is_newer, latest, normalize


def test_normalize():
    assert normalize(" v1.2.3 ") == "1.2.3"
    assert normalize("2.0") == "2.0"


def test_patch_release_is_newer():
    assert is_newer("1.4.3", "1.4.2")
    assert not is_newer("1.4.2", "1.4.3")


def test_components_compare_numerically():
    assert is_newer("1.10.0", "1.9.4")
    assert is_newer("v10.0", "9.9.9")


def test_missing_components_are_zero():
    assert not is_newer("1.2.0", "1.2")
    assert not is_newer("1.2", "1.2.0")
    assert is_newer("1.2.1", "1.2")


def test_prerelease_comes_before_final():
    assert is_newer("2.0.0", "2.0.0-rc1")
    assert not is_newer("2.0.0-rc1", "2.0.0")
    assert is_newer("2.0.0-rc2", "2.0.0-rc1")
    assert is_newer("2.0.0-rc1", "1.9.9")


def test_latest():
    assert latest(["1.9.0", "v1.10.0", "1.10.0-beta", "1.2"]) == "v1.10.0"
    assert latest([]) is None
