"""Normalize the phone numbers customers type into one international format."""

import re

COUNTRY_CODE = "1"


def digits_of(raw: str) -> str:
    return re.sub(r"\D", "", raw)


def normalize(raw: str) -> str:
    """"(555) 010-4477", "555.010.4477" or "+1 555 010 4477" -> "+15550104477".
    Raises ValueError for anything that is not a 10-digit number, with or without the
    country code."""
    digits = digits_of(raw)
    if len(digits) == 10:
        digits = COUNTRY_CODE + digits
    if len(digits) != 11 or not digits.startswith(COUNTRY_CODE):
        raise ValueError(f"not a phone number: {raw!r}")


def same_number(a: str, b: str) -> bool:
    return normalize(a) == normalize(b)
