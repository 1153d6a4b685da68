"""Read quick expense notes such as "lunch 12.50 taxi 8 coffee 3.20" into amounts."""


def amounts(note: str) -> list:
    """The numbers written in `note`, in order, as floats ("12.50" -> 12.5)."""
    found = []
    number = ""
    for ch in note:
        if ch.isdigit() or (ch == "." and number and "." not in number):
            number += ch
        elif number:
            found.append(float(number))
            number = ""
    if number:
        found.append(float(number))
    return found


def total(note: str) -> float:
    return round(sum(amounts(note)), 2)


def largest(note: str) -> float:
    values = amounts(note)
    return max(values) if values else 0.0
