"""The evaluator writes every file of a multi-file candidate in the worker's copy and restores them all."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from codur.testing import command as testcmd
from codur.validate.evaluate import Checks, Stage, apply_files, evaluate, files_of
from codur.validate.worker import Worker

from .conftest import write_repo

ORIGINALS = {"pkg/a.py": "X = 1\n", "b.py": "Y = 1\n"}


@dataclass(frozen=True)
class TwoFiles:
    """Sets X in pkg/a.py and Y in b.py."""

    x: int
    y: int
    file = "pkg/a.py"
    files = ("pkg/a.py", "b.py")
    probe = False

    def apply(self, text: str) -> str:
        return f"X = {self.x}\n"

    def apply_files(self, originals: dict[str, str]) -> dict[str, str]:
        return {"pkg/a.py": self.apply(originals["pkg/a.py"]), "b.py": f"Y = {self.y}\n"}


@dataclass(frozen=True)
class OneFile:
    file = "b.py"
    probe = False

    def apply(self, text: str) -> str:
        return text.replace("1", "4")


CHECKS = Checks([Stage(("-q", "-p", "no:cacheprovider"), 60.0)], failing=frozenset({"test_ab.py::test_sum"}))


@pytest.fixture
def worker(tmp_path: Path):
    repo = write_repo(tmp_path / "repo", {
        **ORIGINALS, "pkg/__init__.py": "",
        "test_ab.py": "from b import Y\nfrom pkg.a import X\n\n\ndef test_sum():\n    assert X + Y == 5\n",
    })
    with Worker(repo, testcmd.resolve(repo, None)) as w:
        yield w


def copy(worker: Worker) -> dict[str, str]:
    return {rel: (worker.root / rel).read_text() for rel in ORIGINALS}


def test_a_candidate_of_two_files_is_judged_on_both_and_both_are_restored(worker: Worker):
    assert evaluate(worker, TwoFiles(2, 3), dict(ORIGINALS), CHECKS).status == "plausible"  # the test saw both
    assert copy(worker) == ORIGINALS
    assert evaluate(worker, TwoFiles(2, 2), dict(ORIGINALS), CHECKS).status == "failed"  # a failing run
    assert copy(worker) == ORIGINALS


def test_every_file_is_restored_when_the_test_run_raises(worker: Worker, monkeypatch):
    seen: list[dict[str, str]] = []

    def dies(*args, **kwargs):
        seen.append(copy(worker))
        raise RuntimeError("the runner died")

    monkeypatch.setattr(worker, "run", dies)
    with pytest.raises(RuntimeError):
        evaluate(worker, TwoFiles(2, 3), dict(ORIGINALS), CHECKS)
    assert seen == [{"pkg/a.py": "X = 2\n", "b.py": "Y = 3\n"}]  # both written before the run
    assert copy(worker) == ORIGINALS


def test_one_file_candidates_keep_working_through_the_defaults(worker: Worker):
    assert files_of(OneFile()) == ("b.py",) and files_of(TwoFiles(1, 1)) == ("pkg/a.py", "b.py")
    assert apply_files(OneFile(), ORIGINALS) == {"b.py": "Y = 4\n"}
    assert evaluate(worker, OneFile(), "Y = 1\n", CHECKS).status == "plausible"  # X = 1, Y = 4
    assert copy(worker) == ORIGINALS


def test_a_candidate_changing_a_file_without_its_original_fails_and_writes_nothing(worker: Worker):
    assert evaluate(worker, TwoFiles(2, 3), {"pkg/a.py": "X = 1\n"}, CHECKS).status == "failed"
    assert copy(worker) == ORIGINALS
