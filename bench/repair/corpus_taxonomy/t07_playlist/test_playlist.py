import pytest
from playlist import Playlist, format_duration, parse_duration

TRACKS = [("Intro", "1:30"), ("Long Road", "4:05"), ("Coda", "2:25")]


def test_durations():
    assert parse_duration("4:05") == 245
    assert format_duration(65) == "1:05"
    assert format_duration(3725) == "1:02:05"


def test_total():
    assert Playlist(TRACKS).total() == 480


def test_start_of_the_playlist():
    assert Playlist(TRACKS).playing_at(0) == (0, "Intro", 0)


def test_position_inside_a_later_track():
    assert Playlist(TRACKS).playing_at(100) == (1, "Long Road", 10)


def test_past_the_end():
    with pytest.raises(ValueError):
        Playlist(TRACKS).playing_at(480)


def test_time_left():
    assert Playlist(TRACKS).time_left(400) == "1:20"
