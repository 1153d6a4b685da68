"""A decoding grammar that keeps a cloze fill from giving the masked code back.

A small code model asked to fill a hole mostly writes the code that was there: it is the likeliest
text, and on the real bugs of bench/real 27% of the embedded model's fills were such echoes, each a
model call for no candidate. AlphaRepair (Xia & Zhang, ESEC/FSE 2022) drops the fills equal to
the original after generating them; here the server is asked not to generate them at all: the fill
is decoded under a grammar whose language is every one-line fill but the original (the masked code,
white space around it, and the original followed by the start of the code after the hole, which the
fixer would cut back to the original). Greedy decoding under it gives the likeliest fill that
differs: the model's second choice, which is what a repair wants from it.

The grammar is llama.cpp's GBNF (its server's ``grammar`` field, on ``/v1/completions`` too).
:func:`rules` gives the language as a small acyclic rule set; :func:`gbnf` writes it out, and
:func:`regex` writes the same rules as a Python regular expression (what the tests check the
language with).
"""

from __future__ import annotations

import re

#: Characters that end the fill's line, and a code line's blanks.
_BLANK = " \t"
#: The first characters of the code after a hole that a model writes again at the end of its fill
#: (``if <hole>:`` filled with ``email:``, ``f(<hole>)`` with ``x)``): the fixer cuts them off, so
#: the original followed by them is the original again.
_CLOSERS = ":)]},"

# A rule's alternative is a tuple of items: ("lit", text), ("not", chars: one character other than
# these and a line end), ("rest",: any characters up to the line end) or ("ref", rule name);
# an empty tuple is the empty string.
Item = tuple[str, str]
Rules = dict[str, list[tuple[Item, ...]]]


def rules(original: str, after: str) -> Rules:
    """The fills of a hole that are not ``original``: one line, not blank, whose text with its blanks
    stripped is not ``original.strip()``, and which is not ``original`` followed by a comment, nor
    by a start of ``after`` (the code after the hole on its line; a comment may follow it) when
    ``after`` starts with one of :data:`_CLOSERS`; nor a comment alone. The rule "root" is the
    fill; anything after its line end is allowed (the server stops there). ``original`` "" (an
    inserted line): any fill that is not blank."""
    text = original.strip()
    close = after.lstrip(_BLANK).split("\n")[0]
    close = close if close[:1] in _CLOSERS else ""
    out: Rules = {"root": [(("ref", "pad"), ("ref", "r0"), ("ref", "end"))]}
    out["pad"] = [(), (("lit", " "), ("ref", "pad")), (("lit", "\t"), ("ref", "pad"))]
    out["end"] = [(), (("lit", "\n"), ("ref", "tail"))]
    out["tail"] = [(), (("lit", "\n"), ("ref", "tail")), (("not", ""), ("ref", "tail"))]
    for i, c in enumerate(text):  # r_i: the fill has matched text[:i] so far
        first = _BLANK + "#" if i == 0 else ""  # a fill that starts with a comment is none
        out[f"r{i}"] = [(("not", first + c), ("rest", "")), (("lit", c), ("ref", f"r{i + 1}"))] + \
            ([()] if i else [])  # a strict prefix of the original differs from it
    n = len(text)
    # after the whole original: blanks, then something that is neither a comment nor a start of ``close``
    out[f"r{n}"] = [(("ref", "pad"), ("ref", "q0"))] if n else [(("ref", "q0"),)]
    for k, c in enumerate(close):
        first = _BLANK + "#" if k == 0 else ""
        out[f"q{k}"] = [(("not", first + c), ("rest", "")), (("lit", c), ("ref", f"q{k + 1}"))]
    out[f"q{len(close)}"] = [(("ref", "pad"), ("not", _BLANK + "#"), ("rest", ""))]
    return out


def gbnf(original: str, after: str) -> str:
    """:func:`rules` as a llama.cpp GBNF grammar (one rule a line)."""
    return "\n".join(f"{name} ::= " + " | ".join(_gbnf_alt(alt) for alt in alts)
                     for name, alts in rules(original, after).items()) + "\n"


def regex(original: str, after: str) -> re.Pattern[str]:
    """:func:`rules` as a Python regular expression matching a whole fill (for tests)."""
    table = rules(original, after)

    def expand(name: str) -> str:
        if name == "pad":
            return "[ \\t]*"
        if name == "tail":
            return "[\\s\\S]*"
        return "(?:" + "|".join("".join(_regex_item(item, expand) for item in alt) for alt in table[name]) + ")"
    return re.compile(expand("root"))


def _gbnf_alt(alt: tuple[Item, ...]) -> str:
    if not alt:
        return '""'
    return " ".join(_gbnf_item(kind, value) for kind, value in alt)


def _gbnf_item(kind: str, value: str) -> str:
    if kind == "lit":
        return '"' + "".join(_gbnf_char(c, '"') for c in value) + '"'
    if kind == "not":
        return "[^\\n" + "".join(_gbnf_char(c, "]^-") for c in value) + "]"
    if kind == "rest":
        return "[^\\n]*"
    return value


def _gbnf_char(c: str, special: str) -> str:
    """``c`` inside a GBNF literal or class: the escapes llama.cpp's grammar parser reads."""
    named = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\"}
    if c in named:
        return named[c]
    return "\\" + c if c in special else c


def _regex_item(item: Item, expand) -> str:
    kind, value = item
    if kind == "lit":
        return re.escape(value)
    if kind == "not":
        return "[^\\n" + "".join(re.escape(c) for c in value) + "]"
    if kind == "rest":
        return "[^\\n]*"
    return expand(value)
