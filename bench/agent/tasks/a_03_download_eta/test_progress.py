from progress import eta_seconds, format_bytes, percent_done, status_line


def test_format_bytes():
    assert format_bytes(512) == "512 B"
    assert format_bytes(1536) == "1.5 KiB"
    assert format_bytes(3 * 1024 * 1024) == "3.0 MiB"


def test_percent_done():
    assert percent_done(250, 1000) == 25.0
    assert percent_done(10, 0) == 0.0


def test_eta_unknown_before_first_bytes():
    assert eta_seconds(0, 1000, 5.0) is None


def test_eta_halfway():
    # 500 of 1000 bytes in 10 s -> 50 B/s -> 10 s to go
    assert eta_seconds(500, 1000, 10.0) == 10.0


def test_eta_when_finished():
    assert eta_seconds(1000, 1000, 8.0) == 0.0


def test_status_line():
    mib = 1024 * 1024
    assert status_line(mib, 2 * mib, 4.0) == "50.0% of 2.0 MiB, 4.0 s left"
