"""Seat map of a small theatre: rows lettered from A, seats numbered from 1."""

import string


class SeatMap:
    def __init__(self, rows, seats_per_row):
        if rows > len(string.ascii_uppercase):
            raise ValueError("at most 26 rows")
        self.rows = rows
        self.seats_per_row = seats_per_row
        self._taken = [[False] * seats_per_row for _ in range(rows)]

    def _position(self, label):
        row = string.ascii_uppercase.find(label[:1].upper())
        if row < 0 or not label[1:].isdigit():
            raise KeyError(label)
        seat = int(label[1:]) - 1
        if not (row < self.rows and 0 <= seat < self.seats_per_row):
            raise KeyError(label)
        return row, seat

    def is_free(self, label):
        row, seat = self._position(label)
        return not self._taken[seat][row]

    def book(self, label):
        if not self.is_free(label):
            raise ValueError(f"seat {label} is already taken")
        row, seat = self._position(label)
        self._taken[seat][row] = True

    def free_seats(self):
        return [f"{string.ascii_uppercase[r]}{s + 1}"
                for r in range(self.rows) for s in range(self.seats_per_row)
                if not self._taken[r][s]]

    def occupancy(self):
        """Share of seats taken, 0..1."""
        taken = sum(row.count(True) for row in self._taken)
        return taken / (self.rows * self.seats_per_row)
