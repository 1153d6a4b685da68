"""A tiny state machine for help-desk tickets.

    open --assign--> in_progress --resolve--> resolved --close--> closed
      ^                 |                        |
      +----unassign-----+                        |
      +-------------------reopen-----------------+
"""

TRANSITIONS = {
    ("open", "assign"): "in_progress",
    ("in_progress", "unassign"): "open",
    ("in_progress", "resolve"): "resolved",
    ("resolved", "reopen"): "open",
    ("resolved", "close"): "closed",
}


class InvalidTransition(Exception):
    pass


class Ticket:
    def __init__(self, title: str):
        self.title = title
        self.state = "open"
        self.history = []  # (old_state, event, new_state)

    def available_events(self) -> list:
        """Events that may be fired from the current state, sorted."""
        return sorted(event for (state, event) in TRANSITIONS if state == self.state)

    def fire(self, event: str) -> str:
        """Apply `event`, record it in the history and return the new state."""
        new_state = TRANSITIONS.get((self.state, event))
        if new_state is None:
            raise InvalidTransition(f"cannot {event} a ticket that is {self.state}")
        self.history.append((self.state, event, new_state))
        self.state = new_state
        return new_state

    def is_active(self) -> bool:
        """True while somebody still has to work on the ticket."""
        return self.state in ("open", "in_progress")

    def times_reopened(self) -> int:
        return sum(1 for _, event, _ in self.history if event == "reopen")
