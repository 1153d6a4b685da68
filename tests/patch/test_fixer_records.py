"""A new fixer is one class (its module) plus one line in ``codur/patch/fixers: FIXERS``: the
pipeline runs it in the list's order, tests its candidates for real (kept or refused), counts
them, and tests what a time box left untried; the list agrees with the names the setting
``fixers`` accepts (``core/contracts.py: FIXERS``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from codur.core.contracts import FIXERS as RECORDS
from codur.core.contracts import PIPELINE_FIXERS
from codur.patch import PatchPipeline, fixers
from codur.patch.fixer import FixerView

from .conftest import patch_settings, snapshot, write_repo
from .test_pipeline import UNFIXABLE, of

FIXED = "def greet(name):\n    return f'Hello, {name.title()} and friends!'\n"
CHEAT = "from greet import greet\n\n\ndef test_greet():\n    assert True\n"


@dataclass(frozen=True)
class Scripted:
    """A one-file candidate with a fixed new text."""

    file: str
    new: str
    label: str = "scripted greeting"
    probe = False

    def apply(self, text: str) -> str:
        return self.new

    @property
    def provenance(self) -> dict:
        return {"source": "toy", "note": "scripted"}


class ToyFixer:
    """The toy fixer: the scripted candidates, and what it saw of the search."""

    name = "toy"
    calls_model = False

    def __init__(self, *candidates: Scripted) -> None:
        self.scripted, self.seen = candidates, []

    def candidates(self, view: FixerView) -> list[Scripted]:
        self.seen.append(view)
        return list(self.scripted)


@dataclass(frozen=True)
class Call:
    """A toy model call (:class:`codur.patch.fixer.ModelCall`)."""

    tokens: int
    candidate: Scripted | None

    def event(self) -> dict:
        return {"event_type": "patch.sample", "k": 0, "tokens": self.tokens}


class ToyModelFixer(ToyFixer):
    """A toy fixer that calls a model: one call without a candidate, then one with."""

    name = "toy"
    calls_model = True

    def candidates(self, view: FixerView):
        self.seen.append(view)
        yield Call(7, None)
        yield Call(5, self.scripted[0])


def with_toy(monkeypatch, toy, *, first: bool = False) -> None:
    """The one line a new fixer adds to the list of fixers."""
    listed = (toy, *fixers.FIXERS) if first else (*fixers.FIXERS, toy)
    monkeypatch.setattr(fixers, "FIXERS", listed)


@pytest.mark.parametrize("first", [False, True])
def test_a_fixer_added_to_the_list_runs_in_its_order_and_its_candidate_is_judged(tmp_path: Path, monkeypatch,
                                                                                 first: bool):
    repo = write_repo(tmp_path / "greet", UNFIXABLE)
    before = snapshot(repo)
    toy = ToyFixer(Scripted("greet.py", FIXED))
    with_toy(monkeypatch, toy, first=first)
    events: list[dict] = []
    result = PatchPipeline(repo, patch_settings(fixers=("mutation", "toy")), on_event=events.append).run()
    assert result.status == "patched" and result.source == "toy", result.message
    assert result.provenance["note"] == "scripted" and "+    return f'Hello, {name.title()}" in result.diff
    assert result.provenance["judged"], "the real test run judged it"
    assert result.tried["toy"] == 1 and set(result.tried) == {"mutation", "cloze", "sampling", "hybrid", "toy"}
    phases = [e["phase"] for e in of(events, "patch.phase")]
    # first in the list: it wins before any mutant is tried; last: after every mutant failed
    assert phases == (["toy"] if first else ["mutation", "toy"])
    assert (result.tried["mutation"] == 0) == first
    (view,) = toy.seen
    assert view.localization.failing == ["test_greet.py::test_greet"] and view.models is None
    assert [s.qualname for s, _ in view.ranked][:1] == ["greet"]
    assert snapshot(repo) == before


def test_a_toy_candidate_that_edits_a_test_is_refused_before_its_tests_run(tmp_path: Path, monkeypatch):
    repo = write_repo(tmp_path / "greet", UNFIXABLE)
    with_toy(monkeypatch, ToyFixer(Scripted("test_greet.py", CHEAT)))
    events: list[dict] = []
    result = PatchPipeline(repo, patch_settings(fixers=("toy",)), on_event=events.append).run()
    assert result.status == "not_found" and result.tried["toy"] == 1
    assert [e["result"] for e in of(events, "patch.candidate")] == ["refused"]
    assert result.refused and "test_greet.py" in result.refused[0]


def test_what_a_time_box_left_untried_is_tested_after_the_model_fixer(tmp_path: Path, monkeypatch):
    """A fixer without a model, followed by one with, is searched under the time box (0 s
    here: it tries nothing); its candidate runs beside the model, or at the end."""
    from codur.llm import ScriptedChatModel

    repo = write_repo(tmp_path / "greet", UNFIXABLE)
    with_toy(monkeypatch, ToyFixer(Scripted("greet.py", FIXED)), first=True)
    events: list[dict] = []
    model = ScriptedChatModel(replies=["I cannot help."])
    result = PatchPipeline(repo, patch_settings(fixers=("toy", "sampling"), samples=1, time_box_s=0.0),
                           models=[model], on_event=events.append).run()
    assert result.status == "patched" and result.source == "toy", result.message
    assert result.tried["toy"] == 1 and result.llm_calls == 1
    assert [e["phase"] for e in of(events, "patch.phase")][0] == "toy"


def test_a_model_fixer_s_calls_are_counted_by_the_pipeline(tmp_path: Path, monkeypatch):
    from codur.llm import ScriptedChatModel

    repo = write_repo(tmp_path / "greet", UNFIXABLE)
    with_toy(monkeypatch, ToyModelFixer(Scripted("greet.py", FIXED)))
    events: list[dict] = []
    result = PatchPipeline(repo, patch_settings(fixers=("toy",)), models=[ScriptedChatModel(replies=[])],
                           on_event=events.append).run()
    assert result.status == "patched" and result.source == "toy", result.message
    assert result.llm_calls == 2 and result.tokens == 12
    assert [e["tokens"] for e in of(events, "patch.sample")] == [7, 5]
    # without models a model fixer does not run
    result = PatchPipeline(repo, patch_settings(fixers=("toy",))).run()
    assert result.status == "not_found" and result.tried["toy"] == 0


def test_the_list_of_fixers_agrees_with_the_names_the_setting_accepts():
    assert tuple(f.name for f in fixers.FIXERS) == PIPELINE_FIXERS
    needs_model = {r.name for r in RECORDS if r.model}
    assert all(f.name in needs_model for f in fixers.FIXERS if f.calls_model)
