"""A phase's time box does not kill a likely winner: a candidate already past its failing
tests (running the rest of the suite) when the box ends may finish, until the whole
search's end. Before, the box killed it and the candidate ran again from the start in the
next phase (on a real bug, 9 s of a 30 s run). Real pytest runs in a real repair session."""

from __future__ import annotations

import threading
import time

from codur.validate.search import CandidateQueue
from codur.validate.session import RepairSession

from .conftest import Rewrite, write_repo

#: The fix passes its failing test at once; the suite's slow test (a real wait on a lock
#: file's timeout, say) keeps the acceptance run going past the box.
FILES = {
    "fees.py": '''
        def late_fee(days, daily=0.5):
            """Fee for a book returned ``days`` late; nothing for a book on time or early."""
            return days * daily
        ''',
    "test_fees.py": '''
        import time

        from fees import late_fee


        def test_on_time_costs_nothing():
            assert late_fee(0) == 0.0


        def test_early_return_costs_nothing():
            assert late_fee(-3) == 0.0


        def test_three_days_late():
            assert late_fee(3) == 1.5


        def test_slow_ledger_sync():
            time.sleep(5)
            assert late_fee(2, daily=1.0) == 2.0
        ''',
}


#: The bug: an early return is charged a negative fee.
FIX = Rewrite("fees.py", "return days * daily", "return max(days, 0) * daily")


def _search(tmp_path, finish_late: bool):
    repo = write_repo(tmp_path / "repo", FILES)
    with RepairSession(repo, workers=1, mutant_timeout_s=30.0) as session:
        session.original("fees.py")
        start = time.monotonic()
        box = start + 3.0  # the failing test passes well within it; the slow test does not
        outcome = session.search(CandidateQueue.ranked([FIX]), deadline=box, cancel=threading.Event(),
                                 finish_by=start + 60.0 if finish_late else None)
        return outcome, time.monotonic() - start


def test_a_candidate_past_its_failing_tests_finishes_after_the_box(tmp_path):
    outcome, seconds = _search(tmp_path, finish_late=True)
    assert outcome.best is FIX and outcome.stopped == "found"
    assert seconds > 3.0  # it did run past the box


def test_without_a_later_end_the_box_kills_it_and_keeps_it_untried(tmp_path):
    outcome, seconds = _search(tmp_path, finish_late=False)
    assert outcome.best is None and outcome.stopped == "budget"
    assert [c for _, c in outcome.left] == [FIX] and outcome.tried == 0
    assert seconds < 5.0  # killed, not waited for
