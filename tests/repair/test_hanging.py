"""Hanging code: localized from the coverage a stopped test leaves, repaired with short limits."""

from __future__ import annotations

import time

from codur.testing import command as testcmd
from codur.validate.checks import whole_suite_checks
from codur.validate.evaluate import evaluate
from codur.validate.failures import loops_around
from codur.validate.localize import localize_faults
from codur.validate.worker import TEST_TIMEOUT_EXIT, Worker

from .conftest import mutation_run, snapshot, write_repo

#: ``i`` is never advanced: test_run loops forever on line 4's ``while``.
NEVER_ADVANCED = {
    "scan.py": '''
        def first_gap(xs):
            """Index of the first i with xs[i + 1] != xs[i] + 1, or len(xs) - 1."""
            i = 0
            while i < len(xs) - 1:
                if xs[i + 1] != xs[i] + 1:
                    return i
                i += 0
            return len(xs) - 1
        ''',
    "test_scan.py": '''
        from scan import first_gap


        def test_single():
            assert first_gap([5]) == 0


        def test_gap():
            assert first_gap([1, 3]) == 0


        def test_run():
            assert first_gap([1, 2, 3, 7]) == 2
        ''',
}

#: The loop swallows every interruption (``except BaseException``): only giving up on
#: the run, with the coverage so far written out, stops it.
SWALLOWS = {
    "spin.py": '''
        def spin(n):
            done = 0
            while done < n:
                try:
                    while True:
                        pass
                except BaseException:
                    pass
            return done
        ''',
    "test_spin.py": '''
        from spin import spin


        def test_zero():
            assert spin(0) == 0


        def test_one():
            assert spin(1) == 1
        ''',
}


#: ``double`` is wrong; the suite's slow test makes a whole-suite stage's timeout long.
SLOW_SUITE = {
    "calc.py": '''
        def double(x):
            return x + x + 1


        def count_up(n):
            i = 0
            while i < n:
                i += 1
            return i
        ''',
    "test_a_count.py": '''
        from calc import count_up


        def test_count():
            assert count_up(3) == 3
        ''',
    "test_b_slow.py": '''
        import time


        def test_slow():
            time.sleep(1.0)
        ''',
    "test_double.py": '''
        from calc import double


        def test_double():
            assert double(2) == 4
        ''',
}


class Rewrite:
    """A candidate that replaces ``old`` with ``new`` in ``file``."""

    probe = False

    def __init__(self, file: str, old: str, new: str):
        self.file, self.old, self.new = file, old, new

    def apply(self, text: str) -> str:
        return text.replace(self.old, self.new)


def test_a_candidate_that_hangs_a_passing_test_is_stopped_at_that_tests_limit(tmp_path):
    repo = write_repo(tmp_path / "repo", SLOW_SUITE)
    command = testcmd.resolve(repo, None)
    loc = localize_faults(repo, command, run_timeout_s=60)
    assert loc.failing == ["test_double.py::test_double"]
    checks = whole_suite_checks(loc, command, tmp_path / "select.json", cap=60.0)
    whole = checks.stages[-1]
    original = (repo / "calc.py").read_text()
    hangs = Rewrite("calc.py", "return x + x + 1", "return x + x").apply(original).replace("i += 1", "i += 0")
    with Worker(repo, command) as worker:
        verdict = evaluate(worker, Rewrite("calc.py", original, hangs), original, checks)
        assert verdict.status == "timeout"  # it fixed test_double, then test_count looped
        (worker.root / "calc.py").write_text(hangs)
        run = worker.run(list(whole.args), whole.timeout_s, dict(whole.env))
    # ended by test_count's own limit (1 s + 5x its baseline time), not by the stage's timeout,
    # which the slow test stretches to several seconds
    assert run.status == "timeout" and run.exit_code == TEST_TIMEOUT_EXIT
    assert run.duration_s < whole.timeout_s, (run.duration_s, whole.timeout_s)


def test_never_advanced_counter_ranks_the_while_first_and_is_repaired(tmp_path):
    repo = write_repo(tmp_path / "repo", NEVER_ADVANCED)
    events = []
    start = time.monotonic()
    result = mutation_run(repo, repair_workers=2, mutant_timeout_s=3.0, events=events)
    elapsed = time.monotonic() - start
    (localized,) = [e for e in events if e["event_type"] == "patch.localized"]
    assert localized["failing_tests"] == ["test_scan.py::test_run"]
    suspicious = [tuple(s) for s in localized["suspicious"]]
    assert suspicious[0][:2] == ("scan.py", 4)  # the `while` line
    assert {("scan.py", 5), ("scan.py", 7)} <= {(f, ln) for f, ln, _ in suspicious}  # its body's coverage
    assert result.ok, result.reason
    assert "+        i += 1\n" in result.diff
    hung = [e for e in events if e["event_type"] == "patch.candidate" and e["result"] == "timeout"]
    assert hung  # mutants that still loop are stopped ...
    assert elapsed < 90  # ... by the short per-test limit, not the stage's (about 15 s on 2 cores)


def test_a_loop_that_swallows_the_interrupt_still_reports_its_coverage(tmp_path):
    repo = write_repo(tmp_path / "repo", SWALLOWS)
    before = snapshot(repo)
    loc = localize_faults(repo, test_timeout_s=0.5, run_timeout_s=60)
    assert snapshot(repo) == before
    assert loc.failing == ["test_spin.py::test_one"]
    assert [t.nodeid for t in loc.tests if t.timed_out] == ["test_spin.py::test_one"]
    assert loc.suspicious[0][:2] == ("spin.py", 5)  # the inner `while True`
    ranked = [ln for _, ln, _ in loc.suspicious]
    assert ranked.index(3) < ranked.index(2)  # the loop around it, above the line before both


def test_a_test_over_its_limit_ends_the_run_as_timeout_early(tmp_path):
    repo = write_repo(tmp_path / "repo", NEVER_ADVANCED)
    command = testcmd.resolve(repo, None)
    with Worker(repo, command) as worker:
        start = time.monotonic()
        result = worker.run(["-x", "-q", "-p", "no:cacheprovider", "-p", testcmd.PLUGIN], 60.0,
                            {"CODUR_REPAIR_TEST_TIMEOUT": "0.5"})
        assert result.status == "timeout"
        assert time.monotonic() - start < 30  # the 0.5 s limit, not the run's 60 s
        assert worker.run(["-q", "-p", "no:cacheprovider", "test_scan.py::test_gap"], 60.0).status == "passed"


def test_loops_around_a_line_innermost_first():
    text = ("def f(xs):\n"
            "    for x in xs:\n"
            "        while x:\n"
            "            x -= 1\n"
            "    def g():\n"
            "        return 1\n"
            "    return xs\n")
    assert loops_around(text, 4) == [(3, 4), (2, 4)]
    assert loops_around(text, 2) == [(2, 4)]
    assert loops_around(text, 6) == []  # a nested function is not inside the loop
    assert loops_around("def (:\n", 1) == []


#: ``cursor`` never moves to the next page: every test that exports loops on line 6's ``while``.
NEVER_FOLLOWED = {
    "pages.py": '''
        def fetch_all(client, cursor=0):
            """Every row, page by page, until a page has no "next" cursor."""
            rows = []
            while cursor is not None:
                page = client.get(cursor)
                rows.extend(page["rows"])
            return rows
        ''',
    "test_pages.py": '''
        from pages import fetch_all


        class Client:
            def __init__(self, pages):
                self.pages = pages

            def get(self, cursor):
                return self.pages[cursor]


        def test_one_page():
            assert fetch_all(Client({0: {"rows": [1], "next": None}})) == [1]


        def test_two_pages():
            assert fetch_all(Client({0: {"rows": [1], "next": 5}, 5: {"rows": [2], "next": None}})) == [1, 2]
        ''',
}


def test_the_loop_a_test_hung_in_gets_its_missing_update_first(tmp_path):
    """The hang names the loop (``hung_loops``); the update it lacks is the first mutant tried,
    ahead of the one-token edits of its header that rank higher by prior alone."""
    from codur.mutation import mutants

    repo = write_repo(tmp_path, NEVER_FOLLOWED)
    loc = localize_faults(repo, test_timeout_s=1.0)
    assert {t.nodeid.split("::")[1] for t in loc.tests if t.timed_out} == {"test_one_page", "test_two_pages"}
    assert loc.hung_loops == {("pages.py", 4)}
    found, _ = mutants.generate(repo, loc.scores, hung_loops=loc.hung_loops)
    assert found[0].operator == "advance_loop_variable"
    assert found[0].description.startswith('added `cursor = page["next"]`')
    plain, _ = mutants.generate(repo, loc.scores)
    assert plain[0].operator != "advance_loop_variable"  # by prior alone it comes later
