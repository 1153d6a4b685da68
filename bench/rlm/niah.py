"""Needle-in-a-haystack contexts for the RLM bench and end-to-end test.

A haystack of random filler sentences with one line ``The secret code is NNNNN.``
at a random place; the question asks for the code. Deterministic per seed.
"""

from __future__ import annotations

import random

QUESTION = "What is the secret code mentioned in the context? Answer with the number."
WORDS = [
    "the", "system", "report", "server", "value", "table", "memory", "quiet", "river", "blue",
    "green", "process", "network", "window", "garden", "yellow", "paper", "silver", "market",
    "cloud", "signal", "engine", "morning", "number", "music", "stone", "orange", "travel",
    "winter", "forest", "letter", "bridge", "camera", "planet", "pocket"
]


def make_haystack(size_chars: int, seed: int = 0) -> tuple[str, str]:
    """(haystack of about ``size_chars`` characters, the secret code it hides)."""
    rng = random.Random(seed)
    lines, total = [], 0
    while total < size_chars:
        line = " ".join(rng.choices(WORDS, k=rng.randint(6, 14))).capitalize() + ".\n"
        lines.append(line)
        total += len(line)
    code = str(rng.randint(10_000, 99_999))
    lines.insert(rng.randint(len(lines) // 10, len(lines) - 1), f"The secret code is {code}.\n")
    return "".join(lines), code


def parse_size(text: str) -> int:
    """'100k' → 100_000, '1m' → 1_000_000, '2500' → 2500 (characters)."""
    text = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("km")) * scale)
