"""Windows of long functions and what a reply adds beside the function, with the scripted chat model."""

from __future__ import annotations

import os
import textwrap

import pytest

from codur.llm import ScriptedChatModel
from codur.patch import window as windows
from codur.patch.formats import NotApplied, apply, complete
from codur.patch.prompt import PromptParts
from codur.patch.sampling import draw
from codur.patch.splice import function_at
from codur.patch.window import apply_lines, window_of

N = windows.WINDOW_MIN_LINES  # steps: the function is longer than the threshold
STEPS = "\n".join(f"    step{i} = total + {i}" for i in range(N))
REPORT = textwrap.dedent('''\
    """Reports."""
    import math

    SCALE = 10


    def report(rows, unit):
        """Sum the rows, then scale."""
        total = 0
        for row in rows:
            if row > 0:
                total += row
    {steps}
        scaled = total * unit
        if scaled > SCALE:
            scaled = SCALE
        return math.floor(scaled)


    def other(rows):
        return len(rows)
    ''').format(steps=STEPS)
LINES = REPORT.splitlines()
BUG = LINES.index("    scaled = total * unit") + 1
FAILURES = "FAILED tests/test_report.py::test_report - assert 3 == 30"


def span():
    return function_at(REPORT, BUG, "report.py")


def parts(fmt="function", **kw) -> PromptParts:
    return PromptParts([span()], REPORT, FAILURES, suspicious=[BUG, BUG + 1], fmt=fmt, task="fix report", **kw)


def test_a_long_function_is_shown_as_a_window_around_its_suspicious_lines():
    p = parts()
    assert span().lines > windows.WINDOW_MIN_LINES and p.window is not None and p.answer_format == "lines"
    assert p.window.start <= BUG <= p.window.end and p.window.lines <= windows.WINDOW_LINES
    assert LINES[p.window.end - 1] == "    return math.floor(scaled)"  # whole statements, to the function's end
    system, user = p.messages("plain")
    assert "corrected lines" in system.content
    text = user.content
    # the excerpt: signature, "...", the lines before the window, not the whole function
    assert "def report(rows, unit):\n    ...\n" in text and "step0 = total + 0" not in text
    assert f"step{N - 1} = total + {N - 1}" in text
    assert text.endswith("    scaled = total * unit\n    if scaled > SCALE:\n        scaled = SCALE\n"
                         "    return math.floor(scaled)\n```")
    assert text.count("scaled = total * unit") == 2  # in the excerpt, and in the lines to rewrite
    assert "Rewrite these lines of `report`" in text
    # a short function is still asked for whole, and gets the whole-file variant
    short = PromptParts([function_at(REPORT, LINES.index("    return len(rows)") + 1, "report.py")], REPORT,
                        FAILURES)
    assert short.window is None and short.answer_format == "function" and short.whole


def test_the_stable_prefix_comes_first_in_every_window_variant():
    p = parts(tests="def test_report():\n    assert report([3], 10) == 30")
    users = [p.messages(v)[1].content for v in ("plain", "tests", "marked", "missing")]
    prefix = os.path.commonprefix(users)
    assert prefix.startswith("Task: fix report\n\nreport.py:\n```python\nimport math\nSCALE = 10\n")
    assert FAILURES in prefix and "scaled = total * unit" in prefix
    assert len({p.messages(v)[0].content for v in ("plain", "tests", "marked", "missing")}) == 1


def test_window_of_keeps_whole_statements_and_a_floor_of_indentation():
    text = "def f(x):\n" + "".join(f"    a{i} = {i}\n" for i in range(20)) + (
        "    if x:\n        y = 1\n        z = 2\n    return x\n")
    s = function_at(text, 2, "f.py")
    w = window_of(text, s, [23], size=4)  # `y = 1`, inside the if
    lines = text.splitlines()
    assert lines[w.start - 1].startswith("    ") and w.lines <= 4
    assert all(len(x) - len(x.lstrip()) >= len(w.indent) for x in lines[w.start - 1: w.end] if x.strip())
    assert window_of(text, s, [1]) is None  # the def line is not in the body


def test_a_rewritten_window_is_spliced_in_with_the_file_indentation():
    p = parts()
    w = p.window
    fixed = REPORT.replace("    scaled = total * unit\n", "    scaled = total * unit * 10\n")
    window = [x.replace("total * unit", "total * unit * 10") for x in LINES[w.start - 1: w.end]]
    # the window whole, unindented, after a line of context the model repeated, then "..."
    reply = "```python\n" + "\n".join(x[4:] for x in [LINES[w.start - 2], *window]) + "\n...\n```"
    assert apply_lines(REPORT, w, reply) == (fixed, ["report"])
    # only the window's last lines: the unchanged lines left out stay as they are
    reply = (f"```python\nstep{N - 1} = total + {N - 1}\nscaled = total * unit * 10\nif scaled > SCALE:\n"
             "    scaled = SCALE\nreturn math.floor(scaled)\n```")
    assert apply_lines(REPORT, w, reply) == (fixed, ["report"])


def test_a_search_replace_reply_matches_inside_the_window_first():
    text = REPORT.replace("def other(rows):\n    return len(rows)", "def other(rows):\n    scaled = total * unit\n"
                          "    return scaled")
    p = PromptParts([span()], text, FAILURES, suspicious=[BUG], fmt="search_replace")
    assert p.window is not None and p.answer_format == "search_replace"
    reply = "<<<<<<< SEARCH\n    scaled = total * unit\n=======\n    scaled = total * unit * 10\n>>>>>>> REPLACE"
    new, changed = apply("search_replace", text, p.spans, reply, p.window)
    assert changed == ["report"] and new.count("total * unit * 10") == 1
    assert new.index("total * unit * 10") < new.index("def other")


def test_a_reply_adding_an_import_a_constant_and_a_helper_keeps_them():
    short = function_at(REPORT, LINES.index("    return len(rows)") + 1, "report.py")
    reply = ("```python\nimport re\nimport math\n\nSCALE = 10\nWORD = re.compile(r'\\w+')\n\n\n"
             "def _words(row):\n    return WORD.findall(row)\n\n\ndef other(rows):\n"
             "    return sum(len(_words(r)) for r in rows)\n```")
    new, changed = apply("function", REPORT, [short], reply)
    assert changed == ["other"]
    ns: dict = {}
    exec(compile(new, "report.py", "exec"), ns)
    assert ns["other"](["a b", "c"]) == 3 and ns["WORD"].pattern == r"\w+"
    assert new.count("import math") == 1 and new.count("SCALE = 10") == 1  # repeated context is not added twice
    assert new.index("import re") < new.index("SCALE = 10") < new.index("def _words") < new.index("def other")


def test_a_changed_init_beside_the_method_and_a_new_method_are_kept():
    text = textwrap.dedent('''\
        class Cache:
            def __init__(self, size):
                self.size = size

            def put(self, key):
                return key


        def outside():
            return 1
        ''')
    method = function_at(text, 6, "cache.py")
    reply = ("```python\ndef __init__(self, size):\n    if size < 0:\n        raise ValueError(size)\n"
             "    self.size = size\n\ndef _check(self, key):\n    return key\n\n"
             "def put(self, key):\n    return self._check(key)\n```")
    new, changed = apply("function", text, [method], reply)
    ns: dict = {}
    exec(compile(new, "cache.py", "exec"), ns)
    assert ns["Cache"](2).put("k") == "k"
    with pytest.raises(ValueError):
        ns["Cache"](-1)
    assert changed == ["Cache.put"] and "def outside():\n    return 1" in new


def test_a_whole_file_reply_keeps_a_new_helper_and_import():
    text = "import math\n\n\ndef area(r):\n    return r * r\n"
    p = PromptParts([function_at(text, 5, "geo.py")], text, FAILURES)
    assert p.whole and p.window is None
    reply = ("```python\nimport math\nfrom functools import cache\n\n\n@cache\ndef _pi():\n    return math.pi\n\n\n"
             "def area(r):\n    return _pi() * r * r\n```")
    model = ScriptedChatModel(replies=[reply])
    drawn = list(draw([model], p, 1, schedule=(("file", 0.0),)))
    assert drawn[0].outcome == "candidate"
    new = drawn[0].sample.new_text
    assert "from functools import cache" in new and "def _pi():" in new and "return _pi() * r * r" in new
    assert drawn[0].sample.functions == ("_pi", "area")  # the functions it changed, the new one too


@pytest.mark.parametrize("fmt, reply, why", [
    ("search_replace", "<<<<<<< SEARCH\n    scaled = total / unit\n=======\n    scaled = 1\n>>>>>>> REPLACE",
     "SEARCH block 1 of 1 matches no lines of report.py: `scaled = total / unit`"),
    ("search_replace", "The bug is in the scaling.", "no SEARCH/REPLACE block in the reply"),
    ("function", "```python\n    scaled = (total * unit\n```", "the window's rewrite does not compile"),
    ("function", "```python\n```", "no code"),
])
def test_a_malformed_reply_is_not_a_candidate_and_says_why(fmt, reply, why):
    p = parts(fmt)
    with pytest.raises(NotApplied, match="^" + why.replace("(", r"\(").replace("[", r"\[")):
        apply(p.answer_format, REPORT, p.spans, reply, p.window)
    model = ScriptedChatModel(replies=[reply])
    drawn = list(draw([model], p, 1))
    assert [d.outcome for d in drawn] == ["no_code"] and drawn[0].error.startswith(why) and drawn[0].sample is None


def test_draw_on_a_long_function_asks_for_the_window_and_splices_the_reply():
    p = parts()
    reply = "```python\n    scaled = total * unit * 10\n    if scaled > SCALE:\n        scaled = SCALE\n" \
            "    return math.floor(scaled)\n```\nThe unit was off by ten."
    model = ScriptedChatModel(replies=[reply, reply.replace("* 10", "* 100")])
    drawn = list(draw([model], p, 2))
    assert [d.outcome for d in drawn] == ["candidate", "candidate"]
    assert all("Rewrite these lines of `report`" in call[-1].content for call in model.calls)
    assert "step0 = total" not in model.calls[0][-1].content  # the function is not shown whole
    assert drawn[0].sample.new_text == REPORT.replace("total * unit\n", "total * unit * 10\n")
    assert drawn[0].sample.functions == ("report",)


def test_a_window_reply_keeps_an_import_and_a_helper_it_adds():
    p = parts()
    reply = ("```python\n    scaled = _scale(total, unit)\n    if scaled > SCALE:\n        scaled = SCALE\n"
             "    return math.floor(scaled)\n```\n```python\nimport operator\n\n\ndef _scale(total, unit):\n"
             "    return operator.mul(total, unit) * 10\n```")
    new, _ = apply_lines(REPORT, p.window, reply)
    ns: dict = {}
    exec(compile(new, "report.py", "exec"), ns)
    assert ns["report"]([1], 1) == 10
    assert new.index("import operator") < new.index("def _scale") < new.index("def report")


@pytest.mark.parametrize("reply, done", [
    ("```python\n    x = 1\n```", False),  # the stream may hold a second block yet
    ("```python\n    x = 1\n```\nThe unit was wrong.", True),  # prose follows: cut
    ("```python\n    x = 1\n```\n```python\nimport re\n", False),  # a second block, open
    ("```python\n    x = 1\n```\n```python\nimport re\n```", True),
])
def test_a_lines_reply_is_complete_after_its_block_or_its_second_block(reply, done):
    assert complete("lines", reply, ["report"]) is done


def test_a_suspicious_comment_line_gives_the_window_of_the_statement_nearest_to_it():
    text = REPORT.replace("    scaled = total * unit\n", "    # scale it\n    scaled = total * unit\n")
    s = function_at(text, BUG, "report.py")
    w = window_of(text, s, [BUG])  # the comment line
    assert w is not None and w.start <= BUG + 1 <= w.end


def test_a_window_prompt_shows_the_long_function_alone():
    other = function_at(REPORT, LINES.index("    return len(rows)") + 1, "report.py")
    p = PromptParts([span(), other], REPORT, FAILURES, suspicious=[BUG], pair=[span(), other])
    assert p.window is not None and p.spans == [span()] and p.pair == []  # a pair rewrites functions whole
    assert "def other" not in p.messages("plain")[1].content


def test_the_file_slot_of_a_window_draws_the_marked_variant():
    model = ScriptedChatModel(default_reply="no idea")
    drawn = list(draw([model], parts(), 3))
    assert [d.variant for d in drawn] == ["plain", "plain", "marked"]  # no tests' source: plain; no file: marked
    assert "The most suspicious lines" in model.calls[2][-1].content


def test_a_window_reply_aligns_an_echoed_excerpt_a_fragment_and_an_added_statement():
    p = parts()
    w = p.window
    fixed = REPORT.replace("    scaled = total * unit\n", "    scaled = total * unit * 10\n")
    # the excerpt echoed whole: imports, "...", the signature, the lines around the window
    echoed = p.messages("plain")[1].content.split("```python\n")[1].split("\n```")[0]
    reply = "```python\n" + echoed.replace("scaled = total * unit", "scaled = total * unit * 10") + "\n```"
    assert apply_lines(REPORT, w, reply) == (fixed, ["report"])
    # a fragment from the middle of the window, less indented than the file, its last line dedented
    reply = "```python\nif scaled > SCALE:\n    scaled = SCALE // 2\nreturn math.floor(scaled)\n```"
    new, _ = apply_lines(REPORT, w, reply)
    assert new == REPORT.replace("        scaled = SCALE\n", "        scaled = SCALE // 2\n")
    # a statement added at the window's top replaces nothing before it
    top = LINES[w.start - 1].strip()
    reply = "```python\nunit = unit or 1\n" + "\n".join(x[4:] for x in LINES[w.start - 1: w.end]) + "\n```"
    new, _ = apply_lines(REPORT, w, reply)
    assert new == REPORT.replace(f"    {top}\n", f"    unit = unit or 1\n    {top}\n", 1)


def test_the_marked_variant_of_a_window_lists_its_lines_only():
    p = PromptParts([span()], REPORT, FAILURES, suspicious=[BUG, LINES.index("    return len(rows)") + 1])
    text = p.messages("marked")[1].content
    assert f"line {BUG}: `scaled = total * unit`" in text and "len(rows)" not in text


def test_a_search_replace_block_with_an_empty_search_adds_its_code_to_the_module():
    p = parts("search_replace")
    reply = ("<<<<<<< SEARCH\n=======\nimport fractions\n>>>>>>> REPLACE\n"
             "<<<<<<< SEARCH\n    scaled = total * unit\n=======\n    scaled = fractions.Fraction(total * unit)\n"
             ">>>>>>> REPLACE")
    new, _ = apply("search_replace", REPORT, p.spans, reply, p.window)
    assert new.index("import fractions") < new.index("SCALE = 10") and "fractions.Fraction(total * unit)" in new
