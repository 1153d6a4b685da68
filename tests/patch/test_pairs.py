"""Pieces of two-place fixes: the splice by name and file, the pair's schedule, the union of near misses."""

from __future__ import annotations

import textwrap

from codur.llm import ScriptedChatModel
from codur.patch.hybrid import hybrid_mutants, merge, union
from codur.patch.prompt import PromptParts
from codur.patch.ranking import pair
from codur.patch.sample import Sample
from codur.patch.sampling import draw
from codur.patch.splice import function_at, functions, splice_files

from .conftest import Told

SHOW = "def show(x):\n    return str(x)\n"
TEXTS = {"a/fmt.py": SHOW, "b/fmt.py": "import json\n\n\n" + SHOW}
SPANS = [function_at(TEXTS["a/fmt.py"], 2, "a/fmt.py"), function_at(TEXTS["b/fmt.py"], 5, "b/fmt.py")]


def block(code: str) -> str:
    return f"```python\n{code}\n```"


def test_splice_files_matches_two_functions_of_one_name_by_their_files():
    # the reply answers in the other order, one label before the block, one as a comment inside it
    reply = ("b/fmt.py:\n" + block("def show(x):\n    return json.dumps(x)") + "\n\n"
             + block("# a/fmt.py\ndef show(x):\n    return repr(x)"))
    news = splice_files(TEXTS, SPANS, reply)
    assert news == {"a/fmt.py": "def show(x):\n    return repr(x)\n",
                    "b/fmt.py": "import json\n\n\ndef show(x):\n    return json.dumps(x)\n"}


def test_splice_files_without_file_names_goes_by_unique_name_then_by_order():
    texts = {"p.py": "def parse(t):\n    return t\n", "q.py": "def emit(v):\n    return v\n"}
    spans = [function_at(texts["p.py"], 2, "p.py"), function_at(texts["q.py"], 2, "q.py")]
    reply = block("def emit(v):\n    return [v]") + "\nthen\n" + block("def parse(t):\n    return t.strip()")
    assert splice_files(texts, spans, reply) == {"p.py": "def parse(t):\n    return t.strip()\n",
                                                 "q.py": "def emit(v):\n    return [v]\n"}
    # one name in two files, no file named: the n-th block for the n-th function
    plain = block("def show(x):\n    return 'a'") + "\n" + block("def show(x):\n    return 'b'")
    news = splice_files(TEXTS, SPANS, plain)
    assert "return 'a'" in news["a/fmt.py"] and "return 'b'" in news["b/fmt.py"]
    # a reply holding one of the two: only that file changes; none: nothing
    assert list(splice_files(texts, spans, block("def emit(v):\n    return 0"))) == ["q.py"]
    assert splice_files(texts, spans, "no code") == {}


def parts_for(texts: dict[str, str], *, pair_first: bool) -> PromptParts:
    first = function_at(texts["p.py"], 2, "p.py")
    second = function_at(texts["q.py"], 2, "q.py")
    return PromptParts([first], texts["p.py"], "FAILED t.py::test_x", tests="def test_x(): ...",
                       texts={"q.py": texts["q.py"]}, pair=[first, second], pair_first=pair_first)


PQ = {"p.py": "def parse(t):\n    return t\n", "q.py": "def emit(v):\n    return v\n"}


def test_a_pair_across_files_is_drawn_second_and_changes_both_files():
    parse, emit = "def parse(t):\n    return t.strip()", "def emit(v):\n    return [v]"
    reply = "p.py:\n" + block(parse) + "\nq.py:\n" + block(emit)
    others = [block("def parse(t):\n    return t.lower()"), block("def parse(t):\n    return 1")]
    model = ScriptedChatModel(replies=[others[0], reply, others[1]])
    drawn = list(draw([model], parts_for(PQ, pair_first=True), 3))
    assert [(d.k, d.variant, d.temperature) for d in drawn] == [(0, "plain", 0.0), (1, "pair", 0.0), (2, "tests", 0.0)]
    sample = drawn[1].sample
    assert sample.files == ("p.py", "q.py") and sample.functions == ("parse", "emit")
    assert sample.new_texts == {"p.py": parse + "\n", "q.py": emit + "\n"}
    assert sample.apply_files(PQ) == sample.new_texts and sample.provenance["files"] == ["p.py", "q.py"]
    assert drawn[0].sample.files == ("p.py",) and "files" not in drawn[0].sample.provenance
    assert "q.py:\n```python\ndef emit(v):" in model.calls[1][1].content
    assert "q.py" not in model.calls[0][1].content and "q.py" not in model.calls[2][1].content


def test_a_pair_not_asked_for_from_the_start_waits_for_a_near_miss():
    near: list[int] = []

    def first(_messages):
        near.append(0)  # the evaluator reports sample 0 a near miss while sample 1 is drawn
        return block("def parse(t):\n    return t.lower()")

    replies = [first] + [block(f"def parse(t):\n    return {n}") for n in range(5)]
    model = ScriptedChatModel(replies=replies)
    drawn = list(draw([model], parts_for(PQ, pair_first=False), 6, Told(near_miss=lambda: bool(near))))
    # pairs: the first greedy as soon as wanted, the next three samples later, warmer; the schedule waits
    assert [d.variant for d in drawn] == ["plain", "pair", "tests", "file", "pair", "missing"]  # a pair takes no slot
    assert drawn[1].temperature == 0.0 and drawn[4].temperature >= 0.7
    assert drawn[1].outcome == "candidate" and drawn[1].sample.files == ("p.py",)  # the reply rewrote one


def test_pair_adds_the_next_function_outside_the_chosen_ones():
    text = "def a():\n    def inner():\n        return 1\n    return inner()\n\n\ndef b():\n    return 2\n"
    a, inner, b = functions(text, "m.py")
    other = function_at("def c():\n    return 3\n", 2, "n.py")
    ranked = [(a, 1.0), (inner, 0.9), (b, 0.6), (other, 0.55)]
    assert pair(ranked, [a]) == ([a, b], False)  # nested `inner` skipped; same file: not from the start
    assert pair(ranked, [a, b]) == ([a, b, other], True)  # another file scoring >= half the top
    assert pair([(a, 1.0), (other, 0.4)], [a]) == ([a, other], False)  # another file, but far behind
    assert pair([(a, 1.0)], [a]) == ([], False)


SRC = textwrap.dedent('''\
    def price(q, u):
        return q + u


    def discount(q):
        if q > 10:
            return 10
        return 0
    ''')


def sample(k: int, texts: dict[str, str], functions_: tuple[str, ...]) -> Sample:
    (first, text), *rest = texts.items()
    return Sample(first, text, k, 0.0, "plain", functions_, tuple(rest))


def test_the_union_of_two_near_misses_in_different_functions_and_files():
    price = sample(0, {"m.py": SRC.replace("q + u", "q * u")}, ("price",))
    disc = sample(3, {"m.py": SRC.replace("q > 10", "q >= 10")}, ("discount",))
    both = union(price, disc, {"m.py": SRC})
    assert both is not None and both.files == ("m.py",) and both.k == 0
    assert both.apply_files({"m.py": SRC}) == {"m.py": SRC.replace("q + u", "q * u").replace("q > 10", "q >= 10")}
    assert both.provenance == {"source": "hybrid", "union": [0, 3], "files": ["m.py"],
                               "functions": ["discount", "price"]}
    # the same function changed by both: no union; nor when one sample is the other
    other_price = sample(1, {"m.py": SRC.replace("q + u", "q * u + 0")}, ("price",))
    assert union(price, other_price, {"m.py": SRC}) is None
    assert union(price, price, {"m.py": SRC}) is None
    # two files: each sample's file as it changed it
    elsewhere = sample(2, {"n.py": "X = 2\n"}, ())
    across = union(price, elsewhere, {"m.py": SRC, "n.py": "X = 1\n"})
    assert across is not None and across.apply_files({}) == {"m.py": price.new_text, "n.py": "X = 2\n"}


def test_merge_applies_both_sides_or_refuses_an_overlap():
    base = "a\nb\nc\nd\n"
    assert merge(base, "A\nb\nc\nd\n", "a\nb\nc\nD\n") == "A\nb\nc\nD\n"
    assert merge(base, "a\nB\nc\nd\n", "a\nb2\nc\nd\n") is None  # the same line
    assert merge(base, "a\nx\nb\nc\nd\n", "a\ny\nb\nc\nd\n") is None  # insertions at one place


def test_hybrid_mutants_of_a_two_file_sample_keep_the_other_file():
    base = sample(1, {"m.py": SRC.replace("q + u", "q * u"), "n.py": "def f(x):\n    return x + 2\n"},
                  ("price", "f"))
    originals = {"m.py": SRC, "n.py": "def f(x):\n    return x + 1\n"}
    mutants = hybrid_mutants(base, originals)
    assert {m.file for m in mutants} == {"m.py", "n.py"}
    for m in mutants[:10]:
        news = m.apply_files(originals)
        assert set(news) == {"m.py", "n.py"} and m.files[0] == m.file
        other = "n.py" if m.file == "m.py" else "m.py"
        assert news[other] == base.new_texts[other] and news[m.file] != base.new_texts[m.file]
