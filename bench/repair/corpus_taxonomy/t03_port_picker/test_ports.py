import pytest
from ports import is_free, next_free_port, parse_listening, pick_ports

LISTING = """\
tcp LISTEN 0 128 127.0.0.1:8000 0.0.0.0:*
tcp LISTEN 0 128 [::]:3000 [::]:*
tcp ESTAB 0 0 10.0.0.2:51234 1.2.3.4:443
"""


def test_parse_listening_ports_only():
    assert parse_listening(LISTING) == {8000, 3000}


def test_privileged_ports_are_never_free():
    assert not is_free(80, set())


def test_preferred_port_when_free():
    assert next_free_port(8000, {3000}) == 8000


def test_ports_in_use_are_skipped():
    assert next_free_port(8000, {8000, 8001}) == 8002


def test_reserved_ports_are_skipped():
    assert next_free_port(8080, set()) == 8081


def test_each_service_gets_its_own_port():
    assert pick_ports(["web", "api"], 8000, {8000}) == {"web": 8001, "api": 8002}


def test_no_port_left():
    with pytest.raises(RuntimeError):
        next_free_port(65535, {65535})
