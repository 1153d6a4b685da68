"""The window a fill sees in a long module (codur.patch.holes.around): the holes of neighbouring
lines share the window's start, so the server's prompt cache holds each prompt up to the hole, and
the text after the hole (read anew by every fill) is short."""

from __future__ import annotations

from codur.patch import holes
from codur.patch.masks import masks

#: A tariff table written out as one long function: 160 lines of a function body, the module's
#: head before it; a hole deep inside is far more than BEFORE_CHARS from the function's start.
HEAD = '"""Freight tariffs by zone."""\n\nimport math\n\nBASE_EUR = 4.5\n\n\n'
BODY = "".join(f"    if zone == {n}:\n        rate = BASE_EUR + {n} * 0.25  # zone {n} surcharge\n"
               for n in range(120))
MODULE = HEAD + "def zone_rate(zone, weight_kg):\n" + BODY + "    return math.ceil(weight_kg) * rate\n"


def window_start(prefix: str) -> str:
    """The first line of the window after the module's head."""
    return prefix.split(holes.ELIDED, 1)[1].split("\n", 1)[0]


def test_neighbouring_holes_deep_in_a_long_function_share_the_windows_start():
    lines = list(range(120, 130))
    found = [m for m in masks(MODULE, "tariff.py", lines) if m.template == "rhs"]
    assert len(found) == 5  # the rate lines among 120..129
    views = [holes.around(m, MODULE) for m in found]
    starts = {window_start(prefix) for prefix, _ in views}
    assert len(starts) == 1, starts  # before: each hole its own start, the cache lost at every fill
    for m, (prefix, suffix) in zip(found, views, strict=True):
        assert prefix.startswith(HEAD) and prefix.endswith(MODULE[:m.start].rsplit("\n", 1)[1])
        seen = prefix.split(holes.ELIDED, 1)[1]
        assert holes.BEFORE_CHARS - holes.STEP_CHARS - 80 <= len(seen) <= holes.BEFORE_CHARS
        assert MODULE[:m.start].endswith(seen)
        assert len(suffix) <= holes.AFTER_CHARS and MODULE[m.end:].startswith(suffix)


def test_the_window_moves_a_step_at_a_time_down_the_function():
    found = [m for m in masks(MODULE, "tariff.py", list(range(120, 240))) if m.template == "rhs"]
    starts = [window_start(holes.around(m, MODULE)[0]) for m in found]
    runs = [s for i, s in enumerate(starts) if i == 0 or s != starts[i - 1]]
    assert len(runs) == len(set(runs)) >= 3  # it only moves forward, a few times over 100 lines
    assert len(found) / len(runs) >= 5  # and each start serves many holes


def test_a_line_longer_than_a_step_keeps_its_own_start_in_the_window():
    long = "    table = [" + ", ".join(str(n) for n in range(1_500)) + "]\n"
    module = HEAD + "def rates(zone):\n" + BODY + long + "    return table[zone]\n"
    (mask,) = [m for m in masks(module, "tariff.py", [module.count("\n", 0, module.index(long)) + 1])
               if m.template == "rhs"]
    prefix, _ = holes.around(mask, module)
    assert prefix.endswith("    table = ")
