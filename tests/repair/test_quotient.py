"""A quotient asked to be whole: its floor division is tried before ``int()`` or ``round()``
around it (PEP 238; :func:`codur.mutation.calls.op_wrap`). Both pass a test that wants whole
cents, and the first plausible candidate is applied; only ``//`` stays exact past 2**53."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from codur import RunStatus
from codur.mutation import generate_mutants

from .conftest import mutation_run, write_repo

POT = '''\
"""Shares of a prize pot."""


def share(pot_cents, winners):
    """Each winner's share of the pot in whole cents; the cents left over stay in the pot."""
    return pot_cents / winners
'''

TESTS = '''\
from pot import share


def test_an_even_split():
    assert share(900, 3) == 300


def test_the_cents_left_over_stay_in_the_pot():
    assert share(1000, 3) == 333
    assert share(2000, 3) == 666
'''


def test_the_floor_division_comes_before_the_wrappers_of_the_quotient(tmp_path: Path):
    (tmp_path / "pot.py").write_text(POT)
    mutants, _ = generate_mutants(tmp_path, {("pot.py", 6): 1.0}, limit=1000, max_pairs=0)
    order = [m.description for m in mutants]
    floor = order.index("replaced `/` with `//`")
    wrapped = [i for i, d in enumerate(order) if d.endswith("with `int(pot_cents / winners)`")
               or d.endswith("with `round(pot_cents / winners)`")]
    assert len(wrapped) == 2 and floor < min(wrapped), order


def test_the_mutation_search_applies_the_floor_division(tmp_path: Path):
    repo = write_repo(tmp_path / "pot", {"pot.py": POT, "test_pot.py": TESTS})
    result = mutation_run(repo, repair_workers=1, mutation_time_box_s=120)
    assert result.status is RunStatus.SUCCESS and result.reason == "verified", result.reason
    assert "    return pot_cents // winners\n" in (repo / "pot.py").read_text()
    spec = importlib.util.spec_from_file_location("pot_fixed", repo / "pot.py")
    pot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pot)
    assert pot.share(10**20 + 3, 1) == 10**20 + 3  # int(x / 1) would give 100000000000000000000
