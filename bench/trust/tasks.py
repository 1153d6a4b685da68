"""bench/trust's tasks: small repos of our own and what each run must end with.

Five kinds: change requests in a repo whose one failing test is unrelated (``change``), features
written wrong by the scripted model (``wrong_feature``), features written right
(``right_feature``), questions (``question``) and plain bug fixes (``plain_fix``). Each task has
a hidden check run after codur (a pytest file, or words the answer must hold): the task is
*done* when it passes. ``expect`` is the end a trustworthy run may have with the scripted
model; the embedded model is judged by the same hidden check.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

GRADES = ('PASS_MARK = 50\n\n\ndef passed(score):\n    """True when ``score`` reaches the pass mark."""\n'
          '    return score > PASS_MARK\n\n\ndef report(scores):\n    for score in scores:\n'
          '        print(score, "pass" if passed(score) else "fail")\n')
GRADES_TESTS = ("from grades import passed\n\n\ndef test_pass_mark():\n    assert passed(50)\n\n\n"
                "def test_high():\n    assert passed(90)\n\n\ndef test_low():\n    assert not passed(10)\n")
CART = ('TAX_RATE = 0.2\n\n\ndef subtotal(items):\n    """Sum of price * quantity over (price, quantity) pairs."""\n'
        '    return sum(price * qty for price, qty in items)\n\n\ndef total(items):\n'
        '    return round(subtotal(items) * (1 + TAX_RATE), 2)\n\n\ndef bulk(items):\n'
        '    """True from 10 items on."""\n    return sum(qty for _, qty in items) > 10\n')
CART_TESTS = ("from cart import bulk, subtotal, total\n\n\ndef test_subtotal():\n"
              "    assert subtotal([(2.0, 3), (1.0, 1)]) == 7.0\n\n\ndef test_total():\n"
              "    assert total([(10.0, 1)]) == 12.0\n\n\ndef test_bulk_at_ten():\n    assert bulk([(1.0, 10)])\n")
TEMPS = ('def c_to_f(c):\n    """Celsius to Fahrenheit."""\n    return c * 9 / 5 - 32\n\n\n'
         'def f_to_c(f):\n    """Fahrenheit to Celsius."""\n    return (f - 32) * 5 / 9\n')
TEMPS_TESTS = ("from temps import c_to_f, f_to_c\n\n\ndef test_boiling():\n    assert c_to_f(100) == 212\n\n\n"
               "def test_freezing():\n    assert f_to_c(32) == 0\n")
TEXT = 'def shout(s):\n    """``s`` in capitals, with a bang."""\n    return s.upper() + "!"\n'
TEXT_TESTS = "from text import shout\n\n\ndef test_shout():\n    assert shout('hi') == 'HI!'\n"
SHAPES = 'def area(w, h):\n    """Area of a w by h rectangle."""\n    return w + h\n'
SHAPES_TESTS = "from shapes import area\n\n\ndef test_area_of_rectangle():\n    assert area(2, 3) == 6\n"
UNITS = 'def scale(n):\n    """n map units in cm on paper, with a 1 cm border."""\n    return round(n * 3.105 + 1, 2)\n'
UNITS_TESTS = "from units import scale\n\n\ndef test_scale():\n    assert scale(2) == 6.21\n"
STATS = ('def summarize(xs):\n    total = 0\n    for x in xs:\n        total = total + x\n'
         '    return {"total": total, "count": len(xs)}\n')
STATS_TESTS = ("from stats import summarize\n\n\ndef test_summarize():\n"
               "    assert summarize([1, 2, 3]) == {'total': 6, 'count': 3}\n")
TOOLS = ('def load_rows(text):\n    return [line.split(",") for line in text.splitlines() if line]\n\n\n'
         'def count_words(text):\n    return len(text.split())\n')
REPORT = 'from tools import load_rows\n\n\ndef main(text):\n    return len(load_rows(text))\n'
TOOLS_TESTS = "from tools import count_words\n\n\ndef test_count_words():\n    assert count_words('a b') == 2\n"
CALC = "def add(a, b):\n    return a + b\n"
REPOS = {"grades": {"grades.py": GRADES, "test_grades.py": GRADES_TESTS},
         "shapes": {"shapes.py": SHAPES, "test_shapes.py": SHAPES_TESTS},
         "units": {"units.py": UNITS, "test_units.py": UNITS_TESTS},
         "stats": {"stats.py": STATS, "test_stats.py": STATS_TESTS},
         "tools": {"tools.py": TOOLS, "report.py": REPORT, "test_tools.py": TOOLS_TESTS},
         "calc": {"calc.py": CALC},
         "cart": {"cart.py": CART, "test_cart.py": CART_TESTS},
         "temps": {"temps.py": TEMPS, "test_temps.py": TEMPS_TESTS},
         "text": {"text.py": TEXT, "test_text.py": TEXT_TESTS}}


def call(name: str, **arguments: str) -> str:
    """A tool call the way the embedded model writes it: a fenced JSON block."""
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def write(path: str, content: str) -> list[str]:
    """The actor's script: write ``content`` to ``path``, then say it is done."""
    return [call("write_file", path=path, content=content), "Done."]


NOT_ABOUT = '{"about_task": false, "tests": [], "why": "the failing test checks something else"}'
PROSE = "I read the change and it looks fine to me."
CRITIC_FAILED = '{"passed": false, "strategy": "static", "reasoning": "the new function does not do what was asked"}'


@dataclass(frozen=True)
class Task:
    """One bench task.

    Attributes:
        id, kind, repo (a key of :data:`REPOS`), task: what codur is asked.
        expect: the ends a trustworthy run may have with the scripted model ("status/reason").
        check: a hidden pytest file (run after codur), or ``answer_has``: words the answer must hold.
        working: files written after the repo's commit (the user's uncommitted work).
        actor, planner, critic: the scripted model's replies per role.
        config: CodurConfig fields for the scripted run (the embedded run uses the defaults).
        cancel_at: a resume task: the first start is cancelled as this node starts (a Ctrl-C
            there), then resumed; ``resumed``: the scripted actor's replies in the resumed run.
    """

    id: str
    kind: str
    repo: str
    task: str
    expect: tuple[str, ...]
    check: str = ""
    answer_has: tuple[str, ...] = ()
    working: dict[str, str] = field(default_factory=dict)
    actor: tuple[str, ...] = ()
    planner: tuple[str, ...] = ()
    critic: tuple[str, ...] = ()
    config: dict = field(default_factory=dict)
    cancel_at: str = ""
    resumed: tuple[str, ...] = ()


NEG = GRADES.replace("    return score > PASS_MARK\n",
                     '    if score < 0:\n        raise ValueError("negative score")\n    return score > PASS_MARK\n')
WARN = ("import logging\n\n" + GRADES.replace(
    "    return score > PASS_MARK\n",
    '    if score > 100:\n        logging.getLogger(__name__).warning("score above 100: %s", score)\n'
    "    return score > PASS_MARK\n"))
LOGGED = ("import logging\n\n" + GRADES.replace('        print(score, "pass" if passed(score) else "fail")\n',
                                              '        logging.getLogger(__name__).info("%s %s", score, '
                                              '"pass" if passed(score) else "fail")\n'))
NONNEG = CART.replace("    return sum(price * qty for price, qty in items)\n",
                      "    return sum(price * qty for price, qty in items if qty >= 0)\n")
ROUNDED = TEMPS.replace("    return (f - 32) * 5 / 9\n", "    return round((f - 32) * 5 / 9, 1)\n")
FEATURE = {"critic": False, "max_turns": 1, "retry_base_delay_s": 0, "fixers": ["agent"]}
CHANGE = {**FEATURE, "fixers": ["mutation", "agent"]}

TASKS: list[Task] = [
    # change requests, one unrelated failing test in the repo
    Task("c01_negative", "change", "grades", "make passed() raise ValueError for negative scores",
         ("success/unverified",), check="import pytest\nfrom grades import passed\n\n\ndef test_it():\n"
         "    with pytest.raises(ValueError):\n        passed(-1)\n",
         planner=(NOT_ABOUT, '{"task_type": "code_generation"}'), actor=tuple(write("grades.py", NEG)), config=CHANGE),
    Task("c02_warning", "change", "grades", "log a warning when the score is above 100", ("success/unverified",),
         check="import logging\nfrom grades import passed\n\n\ndef test_it(caplog):\n"
         "    with caplog.at_level(logging.WARNING):\n        passed(120)\n    assert caplog.records\n",
         planner=(NOT_ABOUT, '{"task_type": "code_generation"}'), actor=tuple(write("grades.py", WARN)), config=CHANGE),
    Task("c03_logging", "change", "grades", "use logging instead of print statements in grades.py",
         ("success/unverified", "success/verified"), check="from pathlib import Path\n\n\ndef test_it():\n"
         "    text = Path('grades.py').read_text()\n    assert 'print(' not in text and 'logging' in text\n",
         planner=(NOT_ABOUT, '{"task_type": "refactor"}'), actor=tuple(write("grades.py", LOGGED)), config=CHANGE),
    # (a refactor is verified by the suite, as before: c03 may end verified; its check says whether it is done)
    Task("c04_negative_qty", "change", "cart", "make subtotal() ignore items with a negative quantity",
         ("success/unverified",), check="from cart import subtotal\n\n\ndef test_it():\n"
         "    assert subtotal([(2.0, 3), (5.0, -1)]) == 6.0\n",
         planner=(NOT_ABOUT, '{"task_type": "code_generation"}'), actor=tuple(write("cart.py", NONNEG)),
         config=CHANGE),
    Task("c05_round", "change", "temps", "make f_to_c() round its result to one decimal place",
         ("success/unverified",),
         check="from temps import f_to_c\n\n\ndef test_it():\n    assert f_to_c(100) == 37.8\n",
         planner=(NOT_ABOUT, '{"task_type": "code_generation"}'), actor=tuple(write("temps.py", ROUNDED)),
         config=CHANGE),
    Task("c06_no_model", "change", "cart", "make subtotal() ignore items with a negative quantity",
         ("failed/no_fixer (the agent is disabled)", "failed/unverified"),
         check="from cart import subtotal\n\n\ndef test_it():\n    assert subtotal([(2.0, 3), (5.0, -1)]) == 6.0\n",
         config={"fixers": ["mutation"]}),
    Task("c07_no_model", "change", "grades", "make passed() raise ValueError for negative scores",
         ("failed/no_fixer (the agent is disabled)", "failed/unverified"),
         check="import pytest\nfrom grades import passed\n\n\ndef test_it():\n"
         "    with pytest.raises(ValueError):\n        passed(-1)\n", config={"fixers": ["mutation"]}),
    # issue 55: codur's own rules must not claim a success nobody checked
    Task("s01_area_word", "change", "shapes", "make area() raise ValueError when a side is negative",
         ("success/unverified",), check="import pytest\nfrom shapes import area\n\n\ndef test_it():\n"
         "    with pytest.raises(ValueError):\n        area(-1, 2)\n",
         planner=(NOT_ABOUT, '{"task_type": "code_generation"}'),
         actor=tuple(write("shapes.py", SHAPES.replace(
             "    return w + h\n",
             '    if w < 0 or h < 0:\n        raise ValueError("negative side")\n    return w + h\n'))),
         config=CHANGE),
    # written after the embedded model's run of s01 (the lead, 2026-11-29): its planner called the
    # word-sharing test about the task, and mutation search's `w * h` ended `success / verified`
    Task("s10_area_about", "change", "shapes", "make area() raise ValueError when a side is negative",
         ("success/unverified",), check="import pytest\nfrom shapes import area\n\n\ndef test_it():\n"
         "    with pytest.raises(ValueError):\n        area(-1, 2)\n",
         planner=('{"about_task": true, "tests": ["test_shapes.py::test_area_of_rectangle"], "why": "area"}',
                  '{"task_type": "code_fix"}'),
         config=CHANGE),
    Task("s02_intended", "change", "units", "the +1 offset in scale() is intended: update test_units.py to expect 7.21",
         ("success/unverified", "success/verified"), check="from pathlib import Path\nfrom units import scale\n\n\n"
         "def test_it():\n    assert scale(2) == 7.21 and '7.21' in Path('test_units.py').read_text()\n",
         planner=('{"task_type": "code_fix"}',),
         actor=tuple(write("test_units.py", UNITS_TESTS.replace("6.21", "7.21"))),
         config=CHANGE),
    Task("s03_keep_passing", "wrong_feature", "text",
         "add a function whisper(s) to text.py that returns s in lower case; test_text.py must keep passing",
         ("success/unverified",),
         check="from text import whisper\n\n\ndef test_it():\n    assert whisper('Hi') == 'hi'\n",
         actor=tuple(write("text.py", TEXT + "\n\ndef whisper(s):\n    return s\n")), config=FEATURE),
    Task("s04_user_edited", "change", "text", "make shout() strip surrounding spaces first",
         ("success/unverified",),
         check="from text import shout\n\n\ndef test_it():\n    assert shout(' hi ') == 'HI!'\n",
         working={"test_text.py": TEXT_TESTS + "\n\ndef test_shout_word():\n    assert shout('ok') == 'OK!'\n"},
         planner=('{"task_type": "code_fix"}',),
         actor=tuple(write("text.py", TEXT.replace('    return', '    # strip first\n    return'))), config=FEATURE),
    Task("s05_refactor_mean", "change", "stats", "simplify summarize() and make it also return the mean",
         ("success/unverified",), check="from stats import summarize\n\n\ndef test_it():\n"
         "    assert summarize([1, 2, 3])['mean'] == 2\n", planner=('{"task_type": "refactor"}',),
         actor=tuple(write("stats.py", 'def summarize(xs):\n    return {"total": sum(xs), "count": len(xs)}\n')),
         config=FEATURE),
    Task("s06_rename_script", "change", "tools", "rename load_rows to read_rows in tools.py",
         ("success/unverified",), check="import report\nfrom tools import read_rows\n\n\ndef test_it():\n"
         "    assert report.main('a,b\\nc,d\\n') == 2\n", planner=('{"task_type": "refactor"}',),
         actor=tuple(write("tools.py", TOOLS.replace("load_rows", "read_rows"))), config=FEATURE),
    Task("s07_critic_prose", "change", "calc", "add a docstring to add() in calc.py",
         ("success/unverified", "failed/max_turns", "failed/verification_failed"),
         check="from calc import add\n\n\ndef test_it():\n    assert add.__doc__\n",
         planner=('{"task_type": "documentation"}',),
         actor=tuple(write("calc.py", "# adds two numbers\n" + CALC)), critic=(PROSE, PROSE),
         config={**FEATURE, "critic": True}),
    # issue 55, item 4: a Ctrl-C as the verdict came in (the cancel lands as review starts) puts
    # the edit back; the resumed run must verify the repo as it is now, not claim the first verdict
    Task("s08_resume_reverted", "resume", "temps",
         "add a function k_to_c(k) to temps.py that converts kelvin to celsius", ("failed/max_turns",),
         check="from temps import k_to_c\n\n\ndef test_it():\n    assert k_to_c(273.15) == 0\n",
         working={"test_kelvin.py": "def test_kelvin():\n    from temps import k_to_c\n\n"
                  "    assert k_to_c(273.15) == 0\n"},
         actor=tuple(write("temps.py", TEMPS + "\n\ndef k_to_c(k):\n    return k - 273.15\n")), config=FEATURE,
         cancel_at="review", resumed=("Done.",)),
    Task("s09_resume_redone", "resume", "temps",
         "add a function k_to_c(k) to temps.py that converts kelvin to celsius", ("success/verified",),
         check="from temps import k_to_c\n\n\ndef test_it():\n    assert k_to_c(273.15) == 0\n",
         working={"test_kelvin.py": "def test_kelvin():\n    from temps import k_to_c\n\n"
                  "    assert k_to_c(273.15) == 0\n"},
         actor=tuple(write("temps.py", TEMPS + "\n\ndef k_to_c(k):\n    return k - 273.15\n")),
         config={**FEATURE, "max_turns": 2}, cancel_at="review",
         resumed=tuple(write("temps.py", TEMPS + "\n\ndef k_to_c(k):\n    return k - 273.15\n"))),
    # features written wrong
    Task("w01_word_count", "wrong_feature", "grades",
         "add a function word_count(text) to grades.py that returns the number of words in text",
         ("success/unverified",), check="from grades import word_count\n\n\ndef test_it():\n"
         "    assert word_count('a b c') == 3\n",
         actor=tuple(write("grades.py", GRADES + "\n\ndef word_count(text):\n    return 0\n")), config=FEATURE),
    Task("w02_reverse_words", "wrong_feature", "text",
         "add a function reverse_words(s) to text.py that reverses the order of the words in s",
         ("failed/max_turns", "failed/verification_failed"), check="from text import reverse_words\n\n\n"
         "def test_it():\n    assert reverse_words('ab cd') == 'cd ab'\n",
         actor=tuple(write("text.py", TEXT + "\n\ndef reverse_words(s):\n    return s[::-1]\n")),
         critic=(call("read_file", path="text.py"), CRITIC_FAILED), config={**FEATURE, "critic": True}),
    Task("w03_kelvin", "wrong_feature", "temps", "add a function k_to_c(k) to temps.py that converts kelvin to celsius",
         ("success/unverified",),
         check="from temps import k_to_c\n\n\ndef test_it():\n    assert k_to_c(273.15) == 0\n",
         actor=tuple(write("temps.py", TEMPS + "\n\ndef k_to_c(k):\n    return k + 273.15\n")), config=FEATURE),
    Task("w04_item_count", "wrong_feature", "cart",
         "add a function item_count(items) to cart.py that returns the total quantity of the items",
         ("failed/max_turns",), check="from cart import item_count\n\n\ndef test_it():\n"
         "    assert item_count([(1.0, 2), (3.0, 4)]) == 6\n",
         working={"test_count.py": "def test_count():\n    from cart import item_count\n\n"
                  "    assert item_count([(1.0, 2), (3.0, 4)]) == 6\n"},
         actor=tuple(write("cart.py", CART + "\n\ndef item_count(items):\n    return len(items)\n")),
         config={**FEATURE, "fixers": ["agent"]}),
    # features written right
    Task("r01_word_count", "right_feature", "grades",
         "add a function word_count(text) to grades.py that returns the number of words in text",
         ("success/unverified",), check="from grades import word_count\n\n\ndef test_it():\n"
         "    assert word_count('a b c') == 3\n",
         actor=tuple(write("grades.py", GRADES + "\n\ndef word_count(text):\n    return len(text.split())\n")),
         config=FEATURE),
    Task("r02_reverse_words", "right_feature", "text",
         "add a function reverse_words(s) to text.py that reverses the order of the words in s",
         ("success/verified",), check="from text import reverse_words\n\n\ndef test_it():\n"
         "    assert reverse_words('ab cd') == 'cd ab'\n",
         working={"test_reverse.py": "def test_reverse():\n    from text import reverse_words\n\n"
                  "    assert reverse_words('ab cd') == 'cd ab'\n"},
         actor=tuple(write("text.py", TEXT + "\n\ndef reverse_words(s):\n    return ' '.join(reversed(s.split()))\n")),
         config=FEATURE),
    Task("r03_kelvin", "right_feature", "temps", "add a function k_to_c(k) to temps.py that converts kelvin to celsius",
         ("success/verified",), check="from temps import k_to_c\n\n\ndef test_it():\n    assert k_to_c(273.15) == 0\n",
         working={"test_kelvin.py": "def test_kelvin():\n    from temps import k_to_c\n\n"
                  "    assert k_to_c(273.15) == 0\n"},
         actor=tuple(write("temps.py", TEMPS + "\n\ndef k_to_c(k):\n    return k - 273.15\n")), config=FEATURE),
    Task("r04_item_count", "right_feature", "cart",
         "add a function item_count(items) to cart.py that returns the total quantity of the items",
         ("success/unverified",), check="from cart import item_count\n\n\ndef test_it():\n"
         "    assert item_count([(1.0, 2), (3.0, 4)]) == 6\n",
         actor=tuple(write("cart.py", CART + "\n\ndef item_count(items):\n    return sum(q for _, q in items)\n")),
         config=FEATURE),
    # questions
    Task("q01_pass_mark", "question", "grades", "what is the pass mark in grades.py?", ("success/answered",),
         answer_has=("50",), actor=("The pass mark is 50: PASS_MARK in grades.py.",), config=FEATURE),
    Task("q02_tax", "question", "cart", "where is the tax rate defined?", ("success/answered",),
         answer_has=("TAX_RATE",), actor=("In cart.py: TAX_RATE = 0.2 at the top of the module.",), config=FEATURE),
    Task("q03_convert", "question", "temps", "explain how c_to_f converts a temperature", ("success/answered",),
         answer_has=("9",), actor=("c_to_f multiplies by 9 / 5 and adds an offset.",), config=FEATURE),
    # plain bug fixes: the cheap fixers first
    Task("f01_grades", "plain_fix", "grades", "make the failing tests pass", ("success/verified",),
         check=GRADES_TESTS, config={"fixers": ["mutation", "agent"]}),
    Task("f02_cart", "plain_fix", "cart", "bulk() is wrong at exactly 10 items. Fix cart.py so the tests pass.",
         ("success/verified",), check=CART_TESTS, config={"fixers": ["mutation", "agent"]}),
    Task("f03_temps", "plain_fix", "temps", "Fix temps.py so the tests in test_temps.py pass.", ("success/verified",),
         check=TEMPS_TESTS, config={"fixers": ["mutation", "agent"]}),
    Task("f04_grades", "plain_fix", "grades", "fix the failing test", ("success/verified",), check=GRADES_TESTS,
         config={"fixers": ["mutation", "agent"]}),
]
