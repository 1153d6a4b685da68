import pytest
from workflow import InvalidTransition, Ticket


def test_new_ticket_is_open_and_active():
    t = Ticket("Printer on fire")
    assert t.state == "open"
    assert t.is_active()
    assert t.available_events() == ["assign"]


def test_fire_moves_to_next_state():
    t = Ticket("VPN down")
    assert t.fire("assign") == "in_progress"
    assert t.state == "in_progress"
    assert t.available_events() == ["resolve", "unassign"]


def test_in_progress_ticket_is_active():
    t = Ticket("VPN down")
    t.fire("assign")
    assert t.is_active()


def test_closed_ticket_is_not_active():
    t = Ticket("Password reset")
    for event in ["assign", "resolve", "close"]:
        t.fire(event)
    assert t.state == "closed"
    assert not t.is_active()


def test_invalid_transition():
    t = Ticket("Broken chair")
    with pytest.raises(InvalidTransition):
        t.fire("close")


def test_history_and_reopen_count():
    t = Ticket("Slow laptop")
    for event in ["assign", "resolve", "reopen", "assign", "resolve"]:
        t.fire(event)
    assert t.times_reopened() == 1
    assert t.history[2] == ("resolved", "reopen", "open")
