"""Seat numbering for a single-aisle aircraft cabin (3-3 layout).

Internally seats are numbered from 0, row by row. Passengers see the row
number (rows start at 1) followed by the seat letter, e.g. "1A" or "23F".
"""

LETTERS = "ABCDEF"
WINDOW = "AF"
AISLE = "CD"


def seat_label(index):
    """Internal seat index -> label shown on the boarding pass."""
    if index < 0:
        raise ValueError("seat index must be >= 0")
    row, column = divmod(index, len(LETTERS))
    return f"{row + 1}{LETTERS[column]}"


def seat_index(label):
    """Label such as '12C' -> internal seat index."""
    label = label.strip().upper()
    row_text, letter = label[:-1], label[-1:]
    if not row_text.isdigit() or letter not in LETTERS or letter == "":
        raise ValueError(f"invalid seat label: {label!r}")
    row = int(row_text)
    if row < 1:
        raise ValueError(f"invalid seat label: {label!r}")
    return (row - 1) * len(LETTERS) + LETTERS.index(letter)


def seat_type(label):
    """'window', 'aisle' or 'middle'."""
    letter = label.strip().upper()[-1:]
    if letter in WINDOW:
        return "window"
    if letter in AISLE:
        return "aisle"
    return "middle"
