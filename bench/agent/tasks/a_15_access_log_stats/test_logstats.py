from logstats import error_rate, parse_line, parse_log, top_paths

LOG = [
    '10.0.0.1 - - [12/Mar/2024:10:00:01 +0000] "GET /index.html HTTP/1.1" 200 5120',
    '10.0.0.2 - - [12/Mar/2024:10:00:02 +0000] "GET /api/items HTTP/1.1" 500 -',
    'garbage line from a crashed writer',
    '10.0.0.1 - - [12/Mar/2024:10:00:05 +0000] "POST /api/items HTTP/1.1" 201 87',
    '10.0.0.3 - - [12/Mar/2024:10:00:09 +0000] "GET /api/items HTTP/1.1" 200 2048',
]


def test_parse_line():
    entry = parse_line(LOG[1])
    assert entry["ip"] == "10.0.0.2"
    assert entry["path"] == "/api/items"
    assert entry["status"] == 500
    assert entry["size"] == 0


def test_parse_log_skips_malformed_lines():
    assert len(parse_log(LOG)) == 4


def test_error_rate():
    assert error_rate(parse_log(LOG)) == 0.25


def test_error_rate_for_quiet_day():
    assert error_rate(parse_log([])) == 0.0
    assert error_rate(parse_log(["not a log line"])) == 0.0


def test_top_paths():
    assert top_paths(parse_log(LOG), n=1) == [("/api/items", 3)]
