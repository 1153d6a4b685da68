"""A new fixer is its module (its phase) plus its record in ``core/contracts.py: FIXERS``: the
pipeline runs it in the table's order, counts its candidates and tests what it left untried."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from codur.core import contracts
from codur.core.contracts import Fixer
from codur.patch import PatchPipeline
from codur.repair.search import CandidateQueue

from .conftest import patch_settings, snapshot, write_repo
from .test_pipeline import UNFIXABLE, of

FIXED = "def greet(name):\n    return f'Hello, {name.title()} and friends!'\n"


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
        return {"source": "fake", "note": "scripted"}


def fake_phase(pipeline, session, run):
    """The fake fixer's phase: one scripted candidate, searched now."""
    session.original("greet.py")  # the evaluator judges a file whose original the session holds
    queue = CandidateQueue([(0, Scripted("greet.py", FIXED))], closed=True)
    return pipeline.search(session, "fake", queue, pipeline.deadline, run.phases)


def lazy_phase(pipeline, session, run):
    """A phase that tries nothing now and leaves its candidate for the end."""
    session.original("greet.py")
    run.untried["fake"] = [(0, Scripted("greet.py", FIXED))]
    return None


def with_fake(monkeypatch, phase: str, *, first: bool = False) -> None:
    fake = Fixer("fake", "scripted fix", model=False, phase=f"{__name__}:{phase}")
    table = (fake, *contracts.FIXERS) if first else (*contracts.FIXERS, fake)
    monkeypatch.setattr(contracts, "FIXERS", table)


@pytest.mark.parametrize("first", [False, True])
def test_a_fixer_declared_by_its_record_runs_in_the_tables_order(tmp_path: Path, monkeypatch, first: bool):
    repo = write_repo(tmp_path / "greet", UNFIXABLE)
    before = snapshot(repo)
    with_fake(monkeypatch, "fake_phase", first=first)
    events: list[dict] = []
    result = PatchPipeline(repo, patch_settings(fixers=("mutation", "fake")), on_event=events.append).run()
    assert result.status == "patched" and result.source == "fake", result.message
    assert result.provenance["note"] == "scripted" and "+    return f'Hello, {name.title()}" in result.diff
    assert result.tried["fake"] == 1 and set(result.tried) == {"mutation", "sampling", "hybrid", "fake"}
    phases = [e["phase"] for e in of(events, "patch.phase")]
    # first in the table: it wins before any mutant is tried; last: after every mutant failed
    assert phases == (["fake"] if first else ["mutation", "fake"])
    assert (result.tried["mutation"] == 0) == first
    assert snapshot(repo) == before


def test_the_candidates_a_phase_left_untried_are_tested_after_every_fixer(tmp_path: Path, monkeypatch):
    repo = write_repo(tmp_path / "greet", UNFIXABLE)
    with_fake(monkeypatch, "lazy_phase", first=True)
    events: list[dict] = []
    result = PatchPipeline(repo, patch_settings(fixers=("mutation", "fake")), on_event=events.append).run()
    assert result.status == "patched" and result.source == "fake", result.message
    assert [e["phase"] for e in of(events, "patch.phase")] == ["mutation", "fake (rest)"]
    assert result.tried["fake"] == 1 and result.tried["mutation"] > 0
