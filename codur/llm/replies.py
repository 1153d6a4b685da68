"""Reading structured answers out of a model's reply text."""

from __future__ import annotations

import json
from typing import Any


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every top-level JSON object written in ``text`` (fenced or bare), in order.

    Small models wrap JSON in prose or code fences; the decoder is tried at every
    ``{`` that is not inside an object already found. Malformed JSON is skipped.
    """
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    i = text.find("{")
    while i != -1:
        try:
            obj, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict):
            found.append(obj)
        i = text.find("{", end)
    return found
