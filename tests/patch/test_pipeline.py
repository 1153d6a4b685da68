"""The candidate-patch pipeline end to end on tiny repos, with scripted model samples."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from codur.llm import ScriptedChatModel
from codur.patch import PatchPipeline

from .conftest import patch_settings, snapshot, write_repo


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


TOTAL_FIXED = fenced("def total(xs):\n    return sum(xs)")
#: fixes test_total, breaks test_total_empty (None != 0)
TOTAL_BREAKS_EMPTY = fenced("def total(xs):\n    return sum(xs) if xs else None")
TOTAL_WRONG = [fenced(f"def total(xs):\n    return {n}") for n in range(1, 6)]

PRICE = "def bulk_price(quantity, unit):\n    gross = {gross}\n    if quantity > 10:\n        return gross * 0.9\n" \
        "    return gross"
#: fixes 2 of the 3 failing tests (the `+`) and leaves the `>`: a near miss
SHOP_NEAR = fenced(PRICE.format(gross="quantity * unit"))
#: fixes the same 2 failing tests but breaks test_two_of_two: not a near miss
SHOP_BREAKS = fenced(PRICE.format(gross="quantity * unit + (unit == 2)"))

#: no single edit turns this into the expected greeting
UNFIXABLE = {
    "greet.py": "def greet(name):\n    return 'hello ' + name[1:]\n",
    "test_greet.py": "from greet import greet\n\n\ndef test_greet():\n"
                     "    assert greet('bob') == 'Hello, Bob and friends!'\n",
}


def pipeline(repo: Path, replies: list, **kw) -> tuple[PatchPipeline, ScriptedChatModel, list[dict]]:
    model = ScriptedChatModel(replies=replies)
    events: list[dict] = []
    kw.setdefault("fixers", ("sampling",))
    kw.setdefault("samples", len(replies))
    settings = patch_settings(**{k: kw.pop(k) for k in ("fixers", "samples", "time_box_s") if k in kw})
    return PatchPipeline(repo, settings, models=[model], on_event=events.append, **kw), model, events


def of(events: list[dict], name: str) -> list[dict]:
    return [e for e in events if e["event_type"] == name]


def test_a_sample_that_breaks_a_passing_test_is_not_accepted(off_by_one_repo: Path):
    before = snapshot(off_by_one_repo)
    p, model, events = pipeline(off_by_one_repo, [TOTAL_BREAKS_EMPTY, TOTAL_FIXED])
    result = p.run()
    assert result.status == "patched", result.message
    assert result.source == "sampling" and result.file == "calc.py"
    assert result.provenance == {"source": "sampling", "sample": 1, "temperature": 0.0, "variant": "tests",
                                 "functions": ["total"], "judged": "1 failing tests, then the whole suite"}
    assert "+    return sum(xs)\n" in result.diff and "if xs else None" not in result.diff
    assert result.failing == ["tests/test_calc.py::test_total"]
    assert result.tried == {"mutation": 0, "cloze": 0, "sampling": 2, "hybrid": 0}
    assert result.llm_calls == 2 and result.tokens > 0 and result.near_miss is None
    # the model saw the failing test's source in the "tests" variant
    assert "def test_total():" in model.calls[1][1].content
    # the pipeline never writes the repo: the graph applies the diff
    assert snapshot(off_by_one_repo) == before

    # events: each sample, each candidate with its provenance, the winner, the end
    names = [e["event_type"] for e in events]
    assert names[0] == "patch.start" and names[-1] == "patch.done" and names[-2] == "patch.found"
    assert [(e["k"], e["variant"], e["temperature"], e["outcome"]) for e in of(events, "patch.sample")] == [
        (0, "plain", 0.0, "candidate"), (1, "tests", 0.0, "candidate")]
    candidates = of(events, "patch.candidate")
    assert [(e["provenance"]["sample"], e["result"]) for e in candidates] == [(0, "failed"), (1, "plausible")]
    assert all(e["source"] == "sampling" and e["provenance"]["source"] == "sampling" for e in candidates)
    found = of(events, "patch.found")[0]
    assert found["provenance"] == result.provenance and found["diff"] == result.diff
    done = events[-1]
    assert (done["status"], done["source"], done["llm_calls"], done["tried"]) == (
        "patched", "sampling", 2, result.tried)


def test_a_near_miss_is_finished_by_mutating_it(shop_repo: Path):
    before = snapshot(shop_repo)
    p, _, events = pipeline(shop_repo, [SHOP_BREAKS, SHOP_NEAR], fixers=("sampling", "hybrid"))
    result = p.run()
    assert result.status == "patched", result.message
    assert result.source == "hybrid"
    assert result.provenance["sample"] == 1 and result.provenance["operator"] == "change_binary_operator"
    assert result.provenance["description"] == "replaced `>` with `>=`"
    # both bugs fixed in one diff against the original
    assert "+    gross = quantity * unit\n" in result.diff and "+    if quantity >= 10:\n" in result.diff
    assert "unit == 2" not in result.diff
    assert result.tried["sampling"] == 2 and result.tried["hybrid"] >= 1 and result.tried["mutation"] == 0
    # sample 0 also fixed two failing tests, but it broke a passing one: not a near miss
    sampled = [(e["provenance"]["sample"], e["result"], e["fixed"]) for e in of(events, "patch.candidate")
               if e["source"] == "sampling"]
    assert sampled == [(0, "failed", 2), (1, "near_miss", 2)]
    assert result.near_miss is not None and result.near_miss["provenance"]["sample"] == 1
    hybrid = [e for e in of(events, "patch.candidate") if e["source"] == "hybrid"]
    assert hybrid[-1]["result"] == "plausible"
    assert {**hybrid[-1]["provenance"], "judged": "3 failing tests, then the whole suite"} == result.provenance
    assert snapshot(shop_repo) == before


def test_the_best_near_miss_is_reported_when_nothing_is_plausible(shop_repo: Path):
    p, _, _ = pipeline(shop_repo, [SHOP_NEAR])
    result = p.run()
    assert result.status == "not_found" and result.diff == "" and result.source == ""
    near = result.near_miss
    assert near is not None
    assert (near["fixed"], near["failing"]) == (2, 3)
    assert near["provenance"]["source"] == "sampling" and near["provenance"]["sample"] == 0
    assert "-    gross = quantity + unit\n+    gross = quantity * unit\n" in near["diff"]
    assert near["diff"].startswith("--- a/shop.py\n+++ b/shop.py\n")
    assert result.message == "no plausible patch among 1 candidates"


def test_mutation_runs_first_and_the_model_is_never_built(off_by_one_repo: Path):
    built: list[int] = []

    def models():
        built.append(1)
        return [ScriptedChatModel(replies=[TOTAL_FIXED])]

    events: list[dict] = []
    result = PatchPipeline(off_by_one_repo, patch_settings(time_box_s=60.0), models=models,
                           on_event=events.append).run()
    assert result.status == "patched" and result.source == "mutation"
    assert result.provenance["operator"] and result.provenance["source"] == "mutation"
    assert "+    for i in range(len(xs)):\n" in result.diff
    assert built == [] and result.llm_calls == 0 and result.tried["sampling"] == 0
    assert not of(events, "patch.sample")
    generated = of(events, "patch.mutants")  # the mutants' count and generation seconds, before any is tested
    assert len(generated) == 1 and generated[0]["count"] > 0 and generated[0]["seconds"] >= 0
    assert events.index(generated[0]) < events.index(of(events, "patch.candidate")[0])


def test_mutants_left_after_the_time_box_are_tested_on_one_worker_while_the_model_writes(off_by_one_repo: Path):
    slow_and_wrong = []

    def wrong(_messages):
        time.sleep(1.0)  # a model that takes its time, and is wrong
        slow_and_wrong.append(1)
        return TOTAL_WRONG[len(slow_and_wrong) % len(TOTAL_WRONG)]

    p, model, events = pipeline(off_by_one_repo, [wrong] * 20, fixers=("mutation", "sampling"), time_box_s=0.0,
                                samples=20)
    result = p.run()
    assert result.status == "patched" and result.source == "mutation", result.message
    assert "+    for i in range(len(xs)):\n" in result.diff
    sampling = [e for e in of(events, "patch.phase") if e["phase"] == "sampling"]
    assert sampling and sampling[0]["backfill"] > 0  # the time box left every mutant to the sampling phase
    assert not [e for e in of(events, "patch.phase") if e["phase"] == "mutation (rest)"]
    assert 0 < len(model.calls) < 20  # found while the model was still sampling
    mutants = [e for e in of(events, "patch.candidate") if e["source"] == "mutation"]
    assert mutants and result.tried["mutation"] == len(mutants)


def test_no_mutant_runs_beside_the_model_when_a_test_hangs(tmp_path: Path):
    repo = write_repo(tmp_path / "digits", {
        "digits.py": "def digit_sum(n):\n    total = 0\n    while n > 0:\n        total += n % 10\n    return total\n",
        "test_digits.py": "from digits import digit_sum\n\n\ndef test_digit_sum():\n    assert digit_sum(123) == 6\n",
    })
    p, model, events = pipeline(repo, [TOTAL_WRONG[0]], fixers=("mutation", "sampling"), time_box_s=0.0)
    result = p.run()
    assert result.status == "patched" and result.source == "mutation", result.message
    assert "+        n //= 10\n" in result.diff
    sampling = [e for e in of(events, "patch.phase") if e["phase"] == "sampling"]
    assert sampling and sampling[0]["backfill"] == 0  # a hanging mutant would hold a core the model needs
    assert [e for e in of(events, "patch.phase") if e["phase"] == "mutation (rest)"]


def test_the_model_is_built_once_mutation_has_failed(tmp_path: Path):
    repo = write_repo(tmp_path / "greet", UNFIXABLE)
    built: list[ScriptedChatModel] = []
    fix = fenced("def greet(name):\n    return f'Hello, {name.title()} and friends!'")

    def models():
        built.append(ScriptedChatModel(replies=[fix]))
        return built

    settings = patch_settings(samples=1, time_box_s=60.0, fixers=("mutation", "sampling"))
    result = PatchPipeline(repo, settings, models=models).run()
    assert result.status == "patched" and result.source == "sampling", result.message
    assert len(built) == 1 and len(built[0].calls) == 1
    assert result.tried["mutation"] > 0  # every mutant was tried before the model was asked


def test_the_token_budget_stops_the_sampling(off_by_one_repo: Path):
    asked: list[int] = []  # the model calls made when the budget was asked (the run's ledger records them)

    def over_budget() -> bool:
        asked.append(len(model.calls))
        return bool(model.calls)

    p, model, events = pipeline(off_by_one_repo, TOTAL_WRONG, fixers=("sampling", "hybrid"),
                                over_budget=over_budget)
    result = p.run()
    assert result.status == "budget" and result.message == "the search's time or token budget ran out"
    assert len(model.calls) == 1 and result.llm_calls == 1 and model.remaining == len(TOTAL_WRONG) - 1
    assert asked == [1] and result.tokens > 0
    assert events[-1]["status"] == "budget"


def test_the_deadline_stops_a_sample_in_flight(off_by_one_repo: Path):
    deadline = time.monotonic() + 5.0  # the baseline run takes ~1-2 s of it

    def slow(_messages):
        time.sleep(max(0.0, deadline + 6.0 - time.monotonic()))  # answers long after the deadline
        return TOTAL_FIXED

    p, model, _ = pipeline(off_by_one_repo, [slow, TOTAL_FIXED], deadline=deadline)
    result = p.run()
    returned = time.monotonic()
    assert len(model.calls) == 1  # the deadline passed while the model was answering
    assert result.status == "budget"
    assert returned - deadline < 4.0  # not held until the model's reply (6 s past the deadline)


def test_cancel_during_sampling(off_by_one_repo: Path):
    cancel = threading.Event()

    def cancel_then_reply(_messages):
        cancel.set()  # the user presses Ctrl-C while the model answers
        return TOTAL_WRONG[0]

    p, model, events = pipeline(off_by_one_repo, [cancel_then_reply, TOTAL_FIXED], cancel=cancel,
                                fixers=("sampling", "hybrid"))
    result = p.run()
    assert result.status == "cancelled" and result.message == "cancelled; repository unchanged"
    assert len(model.calls) == 1 and result.diff == ""
    assert events[-1]["event_type"] == "patch.done" and events[-1]["status"] == "cancelled"


def test_nothing_to_do_when_every_test_passes(tmp_path: Path):
    repo = write_repo(tmp_path / "ok", {
        "ok.py": "def one():\n    return 1\n",
        "test_ok.py": "from ok import one\n\n\ndef test_one():\n    assert one() == 1\n",
    })
    p, model, _ = pipeline(repo, [TOTAL_FIXED], fixers=("mutation", "sampling", "hybrid"))
    result = p.run()
    assert result.status == "no_failing_tests" and model.calls == []
