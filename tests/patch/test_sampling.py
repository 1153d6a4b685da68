"""Model patch sampling with the scripted chat model: targets, prompts, draws."""

from __future__ import annotations

import os
import textwrap

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from codur.llm import ScriptedChatModel
from codur.patch import prompt, sampling
from codur.patch.formats import complete
from codur.patch.prompt import SYSTEM, PromptParts
from codur.patch.ranking import targets
from codur.patch.sampling import SCHEDULE, draw
from codur.patch.splice import function_at

from .conftest import Told

SHOP = textwrap.dedent('''\
    """Prices of a small shop."""
    import math

    TAX = 0.2


    def price(quantity, unit):
        gross = quantity + unit
        return round(gross * (1 + TAX), 2)


    def discount(quantity):
        if quantity > 10:
            return 10
        return 0


    def label(name):
        return name.title()
    ''')
OTHER = "def helper(x):\n    return x - 1\n"
TESTS = textwrap.dedent('''\
    from shop import price


    def test_price():
        assert price(2, 3) == 7.2


    class TestDiscount:
        def test_at_ten(self):
            assert discount(10) == 10
    ''')
FILES = {"shop.py": SHOP, "other.py": OTHER, "tests/test_shop.py": TESTS}
GROSS = SHOP.splitlines().index("    gross = quantity + unit") + 1
IF_LINE = SHOP.splitlines().index("    if quantity > 10:") + 1
LABEL = SHOP.splitlines().index("    return name.title()") + 1
FAILURES = "FAILED tests/test_shop.py::test_price - assert 6.0 == 7.2"

RETURN = "    return round(gross * (1 + TAX), 2)\n"
FIXED = "```python\ndef price(quantity, unit):\n    gross = quantity * unit\n" + RETURN + "```"
FIXED_REFORMATTED = ("Sure!\n```python\ndef price(quantity, unit):\n    # multiply\n    gross = (quantity*unit)\n"
                     + RETURN + "```\nThat multiplies.")
ORIGINAL = "```python\ndef price(quantity, unit):\n    gross = quantity + unit\n" + RETURN + "```"
OTHER_FIX = "```python\ndef price(quantity, unit):\n    return round(quantity * unit * 1.2, 2)\n```"


def read(rel: str) -> str:
    if rel not in FILES:
        raise FileNotFoundError(rel)
    return FILES[rel]


def parts(tests: str = "def test_price():\n    assert price(2, 3) == 7.2", suspicious=(GROSS,)) -> PromptParts:
    return PromptParts([function_at(SHOP, GROSS, "shop.py")], SHOP, FAILURES, tests, list(suspicious))


# -- targets -------------------------------------------------------------------------


def test_targets_picks_the_function_of_the_most_suspicious_line():
    chosen = targets({("shop.py", GROSS): 0.9, ("shop.py", IF_LINE): 0.5, ("shop.py", LABEL): 0.2}, read)
    assert [(s.qualname, score) for s, score in chosen] == [("price", 0.9)]


def test_targets_adds_a_second_function_of_the_same_file_scoring_at_least_four_fifths():
    scores = {("shop.py", GROSS): 1.0, ("shop.py", GROSS + 1): 0.3, ("shop.py", IF_LINE): 0.8,
              ("other.py", 2): 0.95, ("shop.py", LABEL): 0.79}
    chosen = targets(scores, read)
    # other.py scores higher than discount but is another file; label is under 0.8 of the top
    assert [(s.file, s.qualname, score) for s, score in chosen] == [("shop.py", "price", 1.0),
                                                                     ("shop.py", "discount", 0.8)]
    scores[("shop.py", IF_LINE)] = 0.79
    assert [s.qualname for s, _ in targets(scores, read)] == ["price"]


def test_targets_skips_unreadable_and_module_level_lines():
    scores = {("gone.py", 3): 1.0, ("shop.py", 4): 0.95, ("shop.py", IF_LINE): 0.5}  # line 4: TAX = 0.2
    assert [s.qualname for s, _ in targets(scores, read)] == ["discount"]
    assert targets({("gone.py", 1): 1.0}, read) == []


# -- prompts -------------------------------------------------------------------------


def test_test_source_finds_test_functions_and_methods():
    source = prompt.test_source(read, ["tests/test_shop.py::test_price",
                                         "tests/test_shop.py::TestDiscount::test_at_ten[x]",
                                         "tests/test_gone.py::test_x"])
    assert "def test_price():\n    assert price(2, 3) == 7.2" in source
    assert "def test_at_ten(self):" in source and "from shop import" not in source


def test_prompt_variants_share_their_prefix_and_differ_after_it():
    p = parts(tests=prompt.test_source(read, ["tests/test_shop.py::test_price"]), suspicious=(GROSS, IF_LINE))
    plain, tests, marked = (p.messages(v) for v in ("plain", "tests", "marked"))
    for messages in (plain, tests, marked):
        assert isinstance(messages[0], SystemMessage) and messages[0].content == SYSTEM
        assert isinstance(messages[1], HumanMessage)
    users = [m[1].content for m in (plain, tests, marked)]
    prefix = os.path.commonprefix(users)
    # the common prefix (reused by the server's prompt cache) holds the code and the failures
    assert prefix.startswith("shop.py:\n```python\nimport math\nTAX = 0.2\n...\n\ndef price(quantity, unit):\n")
    assert FAILURES in prefix and "gross = quantity + unit" in prefix
    assert "def discount" not in prefix  # only the chosen function is shown
    assert "def test_price" not in users[0] and "suspicious" not in users[0]
    assert "The failing tests:\n```python\ndef test_price():\n    assert price(2, 3) == 7.2\n```" in users[1]
    assert (f"The most suspicious lines (fault localization):\nline {GROSS}: `gross = quantity + unit`\n"
            f"line {IF_LINE}: `if quantity > 10:`") in users[2]
    assert all(u.endswith("Write the corrected `price` in full.") for u in users)


# -- draw ----------------------------------------------------------------------------


def test_draw_dedupes_by_ast_and_reports_each_outcome():
    model = ScriptedChatModel(replies=[FIXED, FIXED_REFORMATTED, ORIGINAL, "I am not sure what is wrong.",
                                       RuntimeError("500"), OTHER_FIX])
    drawn = list(draw([model], parts(), 6))
    assert [d.outcome for d in drawn] == ["candidate", "duplicate", "unchanged", "no_code", "error", "candidate"]
    assert [d.k for d in drawn] == list(range(6))
    assert [(d.variant, d.temperature) for d in drawn] == list(SCHEDULE[:6])
    first = drawn[0].sample
    assert first is not None and first.k == 0 and first.functions == ("price",) and first.file == "shop.py"
    assert first.new_text == SHOP.replace("gross = quantity + unit", "gross = quantity * unit")
    assert first.provenance == {"source": "sampling", "sample": 0, "temperature": 0.0, "variant": "plain",
                                "functions": ["price"]}
    assert drawn[1].sample is None and drawn[1].reply == FIXED_REFORMATTED
    assert drawn[4].error == "RuntimeError: 500" and drawn[4].tokens == 0
    assert drawn[5].sample is not None and "quantity * unit * 1.2" in drawn[5].sample.new_text
    assert all(d.tokens > 0 for d in drawn if d.outcome != "error")
    # every call got its own temperature and seed
    assert [(kw["temperature"], kw["seed"]) for kw in model.call_kwargs] == [
        (t, k) for k, (_, t) in enumerate(SCHEDULE[:6])]
    # the prompts followed the schedule's variants
    assert "The failing tests:" in model.calls[1][1].content and "The failing tests:" not in model.calls[0][1].content
    assert SCHEDULE[2][0] == "file" and model.calls[2][1].content.endswith("Write the corrected shop.py in full.")
    assert "def discount(quantity):" in model.calls[2][1].content  # the whole file is shown
    assert SCHEDULE[3][0] == "missing" and "which statement is missing" in model.calls[3][1].content
    assert "  1: def price(quantity, unit):" in model.calls[3][1].content  # the function's lines, numbered
    assert "suspicious lines" in model.calls[4][1].content
    # the unchanged reply (k=2) is answered in every later prompt, not before
    assert not any("returning" in m[1].content for m in model.calls[:3])
    assert all("is wrong: it fails these tests" in m[1].content for m in model.calls[3:])


def test_draw_file_variant_splices_every_function_the_reply_changes():
    both = ("```python\n\"\"\"Prices.\"\"\"\nimport math\n\nTAX = 0.2\n\n\n"
            "def price(quantity, unit):\n    gross = quantity * unit\n" + RETURN + "\n\n"
            "def discount(quantity):\n    if quantity >= 10:\n        return 10\n    return 0\n\n\n"
            "def label(name):\n    return name.title()\n```")
    model = ScriptedChatModel(replies=[both])
    (drawn,) = draw([model], parts(), 1, schedule=(("file", 0.0),))
    assert drawn.outcome == "candidate" and drawn.variant == "file"
    assert drawn.sample.functions == ("price", "discount")  # label came back unchanged
    assert drawn.sample.new_text == SHOP.replace("quantity + unit", "quantity * unit").replace(
        "quantity > 10", "quantity >= 10")  # the module docstring and constants are the original's
    assert model.calls[0][0].content == prompt.FILE_SYSTEM


def test_whole_file_spans_skip_nested_functions_and_ambiguous_method_names():
    text = textwrap.dedent("""\
        class A:
            def total(self):
                return 1
            def only(self):
                def inner():
                    return 2
                return inner()
        class B:
            def total(self):
                return 3
        def top():
            return 4
        """)
    assert [s.qualname for s in prompt.whole_file_spans(text, "m.py")] == ["A.only", "top"]


def test_draw_without_a_small_file_falls_back_to_plain_and_the_task_leads_every_prompt():
    big = SHOP + "\n".join(f"X{i} = {i}" for i in range(prompt.FILE_MAX_LINES))
    p = PromptParts([function_at(big, GROSS, "shop.py")], big, FAILURES, task="Prices are too low.")
    assert p.whole == []  # too long to be shown whole
    model = ScriptedChatModel(replies=[ORIGINAL, ORIGINAL, ORIGINAL, FIXED])
    drawn = list(draw([model], p, 4, schedule=(("file", 0.0), ("plain", 0.0), ("plain", 0.0), ("plain", 0.0))))
    # no whole-file prompt: a plain one (an unchanged reply gets no feedback sample: FEEDBACK_ANY is off)
    assert [d.variant for d in drawn] == ["plain", "plain", "plain", "plain"]
    assert [d.outcome for d in drawn] == ["unchanged", "unchanged", "unchanged", "candidate"]
    # after two unchanged replies, greedy decoding is not tried again
    assert [kw["temperature"] for kw in model.call_kwargs] == [0.0, 0.0, sampling.UNCHANGED_MIN_T,
                                                               sampling.UNCHANGED_MIN_T]
    assert all(m[1].content.startswith("Task: Prices are too low.\n\nshop.py:") for m in model.calls)


def test_draw_falls_back_to_plain_without_tests_or_lines_and_heats_up_past_the_schedule():
    model = ScriptedChatModel(replies=[FIXED, OTHER_FIX, ORIGINAL])
    drawn = list(draw([model], parts(tests="", suspicious=()), 3, schedule=(("tests", 0.0), ("marked", 0.5))))
    assert [(d.variant, d.temperature) for d in drawn] == [("plain", 0.0), ("plain", 0.5), ("plain", 0.9)]
    assert [kw["temperature"] for kw in model.call_kwargs] == [0.0, 0.5, 0.9]


def test_draw_an_error_hands_over_to_the_next_model():
    broken = ScriptedChatModel(replies=[RuntimeError("server said 500"), FIXED])
    good = ScriptedChatModel(replies=[FIXED, OTHER_FIX])
    drawn = list(draw([broken, good], parts(), 3))
    assert [d.outcome for d in drawn] == ["error", "candidate", "candidate"]
    assert len(broken.calls) == 1 and len(good.calls) == 2
    assert [kw["seed"] for kw in good.call_kwargs] == [1, 2]


def test_draw_two_errors_in_a_row_on_the_last_model_end_the_sampling():
    model = ScriptedChatModel(replies=[RuntimeError("a"), TimeoutError("b"), FIXED])
    drawn = list(draw([model], parts(), 6))
    assert [d.outcome for d in drawn] == ["error", "error"]
    assert model.remaining == 1


def test_draw_checks_stop_before_each_call():
    model = ScriptedChatModel(replies=[FIXED, OTHER_FIX, ORIGINAL])
    drawn = list(draw([model], parts(), 3, Told(stopped=lambda: len(model.calls) >= 1)))
    assert [d.outcome for d in drawn] == ["candidate"] and len(model.calls) == 1
    assert list(draw([ScriptedChatModel(replies=[FIXED])], parts(), 3, Told(stopped=lambda: True))) == []


def test_draw_rewrites_two_functions_of_one_file():
    spans = [function_at(SHOP, GROSS, "shop.py"), function_at(SHOP, IF_LINE, "shop.py")]
    reply = FIXED + "\n\nand\n\n```python\ndef discount(quantity):\n    if quantity >= 10:\n        return 10\n" \
                    "    return 0\n```"
    model = ScriptedChatModel(replies=[reply])
    [d] = list(draw([model], PromptParts(spans, SHOP, FAILURES), 1))
    assert d.outcome == "candidate" and d.sample.functions == ("price", "discount")
    assert "gross = quantity * unit" in d.sample.new_text and "if quantity >= 10:" in d.sample.new_text
    assert "Write the corrected `price` and `discount` in full." in model.calls[0][1].content


@pytest.mark.parametrize("reply,done", [
    ("```python\ndef price(q, u):\n    return q\n```", True),
    ("```python\ndef price(q, u):\n    return q\n", False),  # still streaming
    ("```python\ndef price_of(q):\n    return q\n```\n```python\ndef price(q, u):\n", False),  # a helper first
    ("```python\ndef test_price():\n    pass\n```", False),
])
def test_complete_means_a_closed_block_defining_the_function(reply, done):
    assert complete("function", reply, ["price"]) is done
