"""Conversational sampling: what the tests said about a sample comes back to the model."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from codur.llm import ScriptedChatModel
from codur.patch import PatchPipeline, sampling
from codur.patch.conversation import Judged
from codur.patch.prompt import REST_ASK, RETRY_ASK, PromptParts, feedback
from codur.patch.sampling import draw
from codur.patch.splice import function_at

from .conftest import Told, patch_settings, snapshot

PRICE = ("def bulk_price(quantity, unit):\n    gross = {gross}\n    if quantity {cmp} 10:\n"
         "        return gross * 0.9\n    return gross")


@pytest.fixture
def answer_any(monkeypatch):
    """Feedback samples for failed and unchanged samples too (``sampling.FEEDBACK_ANY``, off by default)."""
    monkeypatch.setattr(sampling, "FEEDBACK_ANY", True)


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


NEAR = fenced(PRICE.format(gross="quantity * unit", cmp=">"))  # fixes 2 of the 3 failing tests
FIXED = fenced(PRICE.format(gross="quantity * unit", cmp=">="))
WRONG = fenced(PRICE.format(gross="quantity - unit", cmp=">"))


def test_a_near_miss_comes_back_with_the_test_that_still_fails_and_the_next_sample_finishes_it(shop_repo: Path):
    before = snapshot(shop_repo)
    pipeline: list[PatchPipeline] = []

    def after_the_verdict(_messages):  # the evaluator judges sample 0 while sample 1 is drawn
        deadline = time.monotonic() + 60
        while not pipeline[0].verdicts and time.monotonic() < deadline:
            time.sleep(0.05)
        return WRONG

    def answer(messages):
        return FIXED if isinstance(messages[-2], AIMessage) else WRONG

    model = ScriptedChatModel(replies=[NEAR, after_the_verdict, answer])
    p = PatchPipeline(shop_repo, patch_settings(samples=3, fixers=("sampling",)), models=[model])
    pipeline.append(p)
    result = p.run()
    assert result.status == "patched", result.message
    assert result.provenance["sample"] == 2 and result.provenance["variant"] == "feedback"
    # the third prompt is the conversation: the near miss as the model's answer, then the verdict
    system, first, *earlier, answered, said = model.calls[2]  # earlier: sample 1's turn, once judged
    assert first.content == model.calls[1][1].content  # the tests prompt, unchanged: the server's cache holds it
    assert isinstance(answered, AIMessage) and "gross = quantity * unit" in answered.content
    assert isinstance(said, HumanMessage)
    assert said.content.startswith("With this version 2 of the 3 failing tests pass, but these still fail:\n"
                                   "- test_discount_starts_at_ten: AssertionError: assert 10 == 9.0")
    assert said.content.endswith(REST_ASK.format(names="`bulk_price`"))
    assert "+    if quantity >= 10:\n" in result.diff and "+    gross = quantity * unit\n" in result.diff
    assert snapshot(shop_repo) == before


@pytest.mark.usefixtures("answer_any")
def test_a_wrong_sample_is_answered_with_its_exception_and_a_different_fix_is_asked_for(off_by_one_repo: Path):
    pipeline: list[PatchPipeline] = []
    wrong = fenced("def total(xs):\n    return len(xs)")

    def after_the_verdict(_messages):
        deadline = time.monotonic() + 60
        while not pipeline[0].verdicts and time.monotonic() < deadline:
            time.sleep(0.05)
        return fenced("def total(xs):\n    return 0")

    model = ScriptedChatModel(replies=[wrong, after_the_verdict, fenced("def total(xs):\n    return sum(xs)")])
    p = PatchPipeline(off_by_one_repo, patch_settings(samples=3, fixers=("sampling",)), models=[model])
    pipeline.append(p)
    result = p.run()
    assert result.status == "patched" and result.provenance["variant"] == "feedback"
    said = model.calls[2][-1].content
    assert said.startswith("With this version the tests still fail:\n- test_total: AssertionError: assert")
    assert said.endswith(RETRY_ASK.format(names="`total`"))
    # both rejected samples are in the conversation, oldest first (the slot waited for sample 1's verdict)
    answers = [m.content for m in model.calls[2] if isinstance(m, AIMessage)]
    assert answers == [wrong, fenced("def total(xs):\n    return 0")]


SRC = "def price(quantity, unit):\n    gross = quantity + unit\n    return gross\n"


def parts() -> PromptParts:
    return PromptParts([function_at(SRC, 2, "shop.py")], SRC, "shop.py::test_price FAILED")


def returns(n: int) -> list[str]:
    """Replies rewriting ``price`` to return 0, 1, ... n - 1."""
    return [fenced(f"def price(quantity, unit):\n    return {k}") for k in range(n)]


@pytest.mark.usefixtures("answer_any")
def test_feedback_samples_alternate_with_the_schedule_and_answer_the_best_near_miss_first():
    model = ScriptedChatModel(replies=returns(6))
    verdicts: list[Judged] = []
    drawn = []
    for d in draw([model], parts(), 6, Told(judged=lambda: list(verdicts))):
        drawn.append(d)
        if d.sample is not None:  # the tests judge each candidate at once
            near = d.k == 1
            verdicts.append(Judged(d.sample, "near_miss" if near else "failed", int(near), 2,
                                   (("t.py::test_price", f"AssertionError: assert {d.k} == 6"),)))
    # ("tests" falls back to plain: no test source)
    assert [d.variant for d in drawn] == ["plain", "plain", "feedback", "file", "feedback", "missing"]
    # the first feedback answers the near miss (sample 1), the next the latest function sample left
    first, second = model.calls[2], model.calls[4]
    assert first[-2].content == fenced("def price(quantity, unit):\n    return 1")
    assert first[-1].content.endswith(REST_ASK.format(names="`price`")) and "assert 1 == 6" in first[-1].content
    assert "assert 0 == 6" in first[-3].content  # the earlier rejected sample stays in the conversation
    assert second[-2].content == fenced("def price(quantity, unit):\n    return 2")  # not 3: a whole-file sample
    assert second[-1].content.endswith(RETRY_ASK.format(names="`price`"))
    assert [d.temperature for d in drawn if d.variant == "feedback"] == [0.0, 0.7]


def test_without_verdicts_the_schedule_is_unchanged():
    model = ScriptedChatModel(replies=[fenced(f"def price(quantity, unit):\n    return {n}") for n in range(4)])
    assert "feedback" not in [d.variant for d in draw([model], parts(), 4)]


def test_feedback_words():
    fails = (("t.py::test_a", "AssertionError: assert 1 == 2\n +  where 1 = f()\nmore\nand more\ncut"),)
    assert feedback("timeout", 0, 1, (("t.py::test_a", "TimeoutError"),)) == \
        "With this version the tests never finish: a loop does not end.\n- test_a: TimeoutError"
    assert feedback("failed", 0, 1, fails) == ("With this version the tests still fail:\n- test_a: AssertionError: "
                                               "assert 1 == 2\n     +  where 1 = f()\n    more\n    and more")
    assert feedback("failed", 1, 1, (), (("t.py::test_b", ""),)) == (
        "With this version the failing tests pass, but it breaks tests that passed before:\n- test_b")
    assert feedback("failed", 1, 2, fails[:1], (("t.py::test_b", "KeyError: 'x'"),)).split("\n")[-2:] == [
        "It also breaks tests that passed before:", "- test_b: KeyError: 'x'"]


@pytest.mark.usefixtures("answer_any")
def test_a_reply_returning_the_code_unchanged_is_answered_with_what_the_tests_say_of_the_original():
    verdict = (("t.py::test_price", "AssertionError: assert 5 == 6\n +  where 5 = price(2, 3)"),)
    p = PromptParts([function_at(SRC, 2, "shop.py")], SRC, "shop.py::test_price FAILED", verdict=verdict)
    unchanged = fenced(SRC.rstrip())
    model = ScriptedChatModel(replies=[unchanged, unchanged, fenced("def price(quantity, unit):\n    return 6")])
    drawn = list(draw([model], p, 3))
    # ("tests" falls back to plain: no test source)
    assert [(d.variant, d.outcome) for d in drawn] == [("plain", "unchanged"), ("plain", "unchanged"),
                                                       ("feedback", "candidate")]
    conversation = model.calls[2]
    assert isinstance(conversation[-2], AIMessage) and "gross = quantity + unit" in conversation[-2].content
    assert conversation[-1].content.startswith(
        "With this version the tests still fail:\n- test_price: AssertionError: assert 5 == 6")
    assert conversation[-1].content.endswith(RETRY_ASK.format(names="`price`"))
    assert sum(isinstance(m, AIMessage) for m in conversation) == 1  # one unchanged answer, not two


@pytest.mark.usefixtures("answer_any")
def test_the_originals_verdict_comes_from_the_baseline_run(off_by_one_repo: Path):
    original = (off_by_one_repo / "calc.py").read_text()
    unchanged = fenced(original.strip())
    model = ScriptedChatModel(replies=[unchanged, unchanged, fenced("def total(xs):\n    return sum(xs)")])
    result = PatchPipeline(off_by_one_repo, patch_settings(samples=3, fixers=("sampling",)), models=[model]).run()
    assert result.status == "patched" and result.provenance["variant"] == "feedback"
    said = model.calls[2][-1].content
    assert said.startswith("With this version the tests still fail:\n- test_total: AssertionError: assert ")
    assert " == " in said.split("\n")[1]  # the values compared: the baseline ran with assertions rewritten


@pytest.mark.usefixtures("answer_any")
def test_a_feedback_slot_waits_for_the_verdict_of_a_candidate_still_being_tested():
    replies = returns(3)
    verdicts: list[Judged] = []

    def later(d):  # sample 1's tests finish 0.5 s after it is drawn
        if d.sample is not None and d.k == 1:
            threading.Timer(0.5, verdicts.append, [Judged(d.sample, "near_miss", 1, 2)]).start()
        return d

    model = ScriptedChatModel(replies=replies)
    drawn = list(map(later, draw([model], parts(), 3, Told(judged=lambda: list(verdicts)))))
    assert [d.variant for d in drawn] == ["plain", "plain", "feedback"]
    assert model.calls[2][-2].content == replies[1]


#: slugify() checks its words and never returns them; `return words` (the mutant) fixes the
#: comparison test only: the join is left to the model.
SLUGS = {
    "slugs.py": '''
        import re


        def slugify(title: str) -> str:
            """"Hello, World!" -> "hello-world"; ValueError for a title with no word."""
            words = re.findall(r"[a-z0-9]+", title.lower())
            if not words:
                raise ValueError(f"nothing to slug in {title!r}")


        def same_slug(a: str, b: str) -> bool:
            return slugify(a) == slugify(b)
        ''',
    "test_slugs.py": '''
        import pytest

        from slugs import same_slug, slugify


        def test_slug():
            assert slugify("Hello, World!") == "hello-world"


        def test_same_slug():
            assert same_slug("Hello world", "hello-world")
            assert not same_slug("hello world", "hello there")


        def test_no_words():
            with pytest.raises(ValueError):
                slugify("!!!")
        ''',
}


def test_a_near_miss_mutant_is_continued_by_the_model(tmp_path: Path):
    """The mutant that adds `return words` fixes one of the two failing tests (it is probed
    test by test); a feedback sample shows it as the earlier answer with the test that still
    fails, and the model's next reply finishes the fix."""
    from .conftest import write_repo

    repo = write_repo(tmp_path / "slugs", SLUGS)
    code = (repo / "slugs.py").read_text()
    echo = fenced(code[code.index("def slugify"):code.index("\n\n\ndef same_slug")])
    fixed = fenced(echo[len("```python\n"):-len("\n```")].replace(
        '        raise ValueError(f"nothing to slug in {title!r}")',
        '        raise ValueError(f"nothing to slug in {title!r}")\n    return "-".join(words)'))

    def answer(messages):
        continued = any(isinstance(m, AIMessage) and "return words" in str(m.content) for m in messages)
        return fixed if continued else echo

    model = ScriptedChatModel(replies=[answer] * 6)
    result = PatchPipeline(repo, patch_settings(samples=6, fixers=("mutation", "sampling"), time_box_s=120),
                           models=[model]).run()
    assert result.status == "patched", result.message
    assert result.provenance["variant"] == "feedback"
    turn = next(call for call in model.calls if any("return words" in str(m.content) for m in call))
    said = turn[-1].content
    assert said.startswith("With this version 1 of the 2 failing tests pass, but these still fail:\n- test_slug:")
    assert "Keep the change that made those tests pass" in said and "`slugify`" in said
    assert '+    return "-".join(words)\n' in result.diff


def test_by_default_a_failed_sample_is_followed_by_the_schedule_not_by_feedback():
    """FEEDBACK_ANY off: only near misses are answered; a failed sample leaves its slot to the
    schedule (bench/agent: the whole-file samples that solved a_13 and b_09)."""
    wrong = fenced("def price(quantity, unit):\n    return 0")
    model = ScriptedChatModel(replies=[wrong, wrong.replace("0", "1"), wrong.replace("0", "2")])
    judged: list[Judged] = []
    drawn = []
    for d in draw([model], parts(), 3, Told(judged=lambda: judged), schedule=(("plain", 0.0), ("plain", 0.0),
                                                                       ("plain", 0.0))):
        drawn.append(d)
        judged.append(Judged(d.sample, "failed", 0, 1))
    assert [d.variant for d in drawn] == ["plain", "plain", "plain"]
