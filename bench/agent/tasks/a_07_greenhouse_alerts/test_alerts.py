from alerts import check, out_of_range


def test_value_inside_band():
    assert out_of_range("temperature", 21.5) is False


def test_band_edges_are_acceptable():
    assert out_of_range("humidity", 40.0) is False
    assert out_of_range("humidity", 85.0) is False


def test_too_cold_and_too_hot():
    assert out_of_range("temperature", 5.0) is True
    assert out_of_range("temperature", 35.0) is True


def test_offline_sensor_reported():
    assert check({"gh1-t": ("temperature", None)}) == ["gh1-t: offline"]


def test_check_report():
    readings = {
        "gh2-soil": ("soil_moisture", 12.0),
        "gh1-t": ("temperature", 22.0),
        "gh1-h": ("humidity", 91.0),
    }
    assert check(readings) == [
        "gh1-h: humidity 91.0 outside 40.0-85.0",
        "gh2-soil: soil_moisture 12.0 outside 20.0-60.0",
    ]
