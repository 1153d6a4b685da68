"""Every fixer's candidates go through the footprint check before their tests run: a sample
that empties the function the tests reach, or a candidate that edits a test, is refused even
though the tests would pass with it (codur/validate/footprint.py, codur/validate/evaluate.py)."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from codur.core.events.patch import PatchCandidate, PatchDone
from codur.core.events.verify import VerifyVerdict
from codur.llm import ScriptedChatModel
from codur.patch import PatchPipeline
from codur.testing import command as testcmd
from codur.ui.progress import Progress
from codur.validate.evaluate import CandidateVerdict, Checks, Stage, evaluate
from codur.validate.worker import Worker

from .conftest import patch_settings, snapshot, write_repo

#: check_order refuses a quantity of 0, which the shop allows. Emptying check_order makes every
#: test pass: no test asks for a refusal. Only the footprint check stands in the way.
ORDERS = {
    "orders.py": '''
        def check_order(order):
            """Raise ValueError for an order the shop cannot take."""
            if order["qty"] <= 0:
                raise ValueError("quantity")
            if not order.get("sku"):
                raise ValueError("sku")
        ''',
    "tests/test_orders.py": '''
        from orders import check_order


        def test_a_plain_order():
            check_order({"qty": 2, "sku": "a"})


        def test_an_order_of_none_is_a_reservation():
            check_order({"qty": 0, "sku": "a"})
        ''',
    "pyproject.toml": '''
        [project]
        name = "orders"
        version = "0.1.0"

        [tool.pytest.ini_options]
        pythonpath = ["."]
        ''',
}

EMPTIED = '```python\ndef check_order(order):\n    """Raise ValueError for an order the shop cannot take."""\n' \
          '    pass\n```'
FIXED = '```python\ndef check_order(order):\n    if order["qty"] < 0:\n        raise ValueError("quantity")\n' \
        '    if not order.get("sku"):\n        raise ValueError("sku")\n```'


def run_pipeline(repo: Path, replies: list[str]) -> tuple:
    events: list[dict] = []
    model = ScriptedChatModel(replies=replies)
    settings = patch_settings(fixers=("sampling",), samples=len(replies))
    return PatchPipeline(repo, settings, models=[model], on_event=events.append).run(), events


def test_a_sample_that_empties_the_function_is_refused_and_the_real_fix_wins(tmp_path: Path):
    repo = write_repo(tmp_path / "orders", ORDERS)
    before = snapshot(repo)
    result, events = run_pipeline(repo, [EMPTIED, FIXED])
    assert result.status == "patched", result.message
    assert result.provenance["sample"] == 1 and "+    if order[\"qty\"] < 0:" in result.diff
    assert result.refused == ["emptied check_order()"]
    candidates = [e for e in events if e["event_type"] == "patch.candidate"]
    assert [(e["result"], e.get("reason")) for e in candidates] == [("refused", "emptied check_order()"),
                                                                   ("plausible", None)]
    assert events[-1]["event_type"] == "patch.done" and events[-1]["refused"] == ["emptied check_order()"]
    assert snapshot(repo) == before


def test_when_only_the_emptied_sample_comes_nothing_is_accepted(tmp_path: Path):
    repo = write_repo(tmp_path / "orders", ORDERS)
    result, _ = run_pipeline(repo, [EMPTIED])
    assert result.status == "not_found" and result.diff == ""
    assert result.refused == ["emptied check_order()"] and result.near_miss is None


@dataclass(frozen=True)
class EditsTheTest:
    """A two-file candidate: the code fixed, and the failing test rewritten to expect the bug."""

    file = "orders.py"
    files = ("orders.py", "tests/test_orders.py")
    probe = False

    def apply(self, text: str) -> str:
        return text

    def apply_files(self, originals: dict[str, str]) -> dict[str, str]:
        test = originals["tests/test_orders.py"].replace('check_order({"qty": 0, "sku": "a"})', "pass")
        return {"orders.py": originals["orders.py"], "tests/test_orders.py": test}


def test_a_candidate_that_edits_a_test_is_refused_before_any_test_runs(tmp_path: Path):
    repo = write_repo(tmp_path / "orders", ORDERS)
    originals = {rel: (repo / rel).read_text() for rel in EditsTheTest.files}
    ran: list[str] = []
    checks = Checks([Stage(("-q", "-p", "no:cacheprovider"), 60.0)],
                    failing=frozenset({"tests/test_orders.py::test_an_order_of_none_is_a_reservation"}))
    with Worker(repo, testcmd.resolve(repo, None)) as worker:
        worker_run = worker.run
        worker.run = lambda *a, **k: ran.append("run") or worker_run(*a, **k)
        evaluation = evaluate(worker, EditsTheTest(), originals, checks)
        assert (worker.root / "tests/test_orders.py").read_text() == originals["tests/test_orders.py"]
    assert evaluation.status is CandidateVerdict.REFUSED and evaluation.reason == "edited tests/test_orders.py"
    assert ran == []  # refused before its tests ran


def test_the_progress_lines_say_what_was_refused_whatever_the_verbosity():
    buffer = io.StringIO()
    progress = Progress(Console(file=buffer, width=200, highlight=False))
    progress(PatchCandidate(source="mutation", label="orders.py:4 deleted `raise`", provenance={}, result="refused",
                            fixed=0, seconds=0.0, reason="emptied check_order()"))
    progress(PatchDone(status="patched", source="sampling", tried={"sampling": 2}, llm_calls=2, tokens=0,
                       elapsed_s=3.0, phases={}, message="", refused=["emptied check_order()"]))
    progress(VerifyVerdict(passed=False, strategy="tests", source="deterministic", overruled=None, fallback=None,
                           refused="edited tests/test_orders.py"))
    lines = buffer.getvalue().splitlines()
    assert "     #1 mutation: orders.py:4 deleted `raise` → refused: emptied check_order()" in lines
    assert "   ↳ patch search patched: tried 2 sampling, refused 1 3.0s" in lines
    assert "   ! refused the change: edited tests/test_orders.py" in lines
