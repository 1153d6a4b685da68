"""How a candidate patch is judged: the test runs (stages) of :class:`codur.validate.evaluate.Checks`.

Without test selection a candidate runs its failing tests (``-x``), then the whole suite.
With it (:mod:`codur.validate.selection`; a suite the run has seen whole once) it runs its
failing tests, then the passing tests that cover the files it changes, and only then,
as the likely winner, the whole suite, where the tests that failed before the change and
are not its to fix may still fail.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from pathlib import Path

from codur.testing import command as testcmd
from codur.testing.ids import file_of
from codur.validate import localize
from codur.validate.evaluate import Checks, Stage

#: The whole-suite run of a winner may take this many times the suite's own seen time, plus
#: :data:`GATE_SLACK_S` seconds.
GATE_FACTOR = 3.0
GATE_SLACK_S = 10.0

#: Every test of a candidate's runs has a per-test limit of this many seconds plus
#: :data:`HANG_FACTOR` times its own baseline time (a test that passed in the baseline), or
#: times the longest test the baseline saw end (a test that failed or hung there: its
#: baseline time says nothing of how long it takes to pass); at most the stage's cap. A
#: candidate that loops fails at that limit, not at its stage's whole timeout.
HANG_TEST_S = 1.0
HANG_FACTOR = 5.0


def test_limits(loc: localize.Localization, path: Path, cap: float, *,
                unseen_s: float | None = None) -> tuple[tuple[str, str], ...]:
    """Write the per-test limits of a candidate's runs (see :data:`HANG_TEST_S`) to ``path``
    (JSON, node id -> seconds) and return the plugin's environment for them: the file, and
    the limit of the tests it does not name (those that did not pass in the baseline).

    ``cap`` and ``unseen_s`` are in seconds; ``unseen_s``, when given, is the least limit of
    the tests the file does not name (a run of tests the baseline did not run)."""
    ended = [t.duration for t in loc.tests if not t.timed_out]
    other = min(cap, HANG_TEST_S + HANG_FACTOR * max(ended, default=0.0))
    if unseen_s is not None:
        other = max(other, unseen_s)
    own = {t.nodeid: round(min(cap, HANG_TEST_S + HANG_FACTOR * t.duration), 3)
           for t in loc.tests if t.outcome == "passed"}
    path.write_text(json.dumps(own))
    return ("CODUR_REPAIR_TEST_LIMITS", str(path)), ("CODUR_REPAIR_TEST_TIMEOUT", f"{other:.3f}")


def stage_timeout(seconds: float, cap: float) -> float:
    """Stage timeout in seconds: generous over the baseline estimate, at most ``cap``."""
    return min(cap, max(2.0, 4.0 * seconds + 1.0))


def whole_suite_checks(loc: localize.Localization, command: testcmd.TestCommand, select: Path,
            cap: float, plugin_free: bool = False) -> Checks:
    """How a candidate is judged: its failing tests, then the whole suite (see :class:`Checks`).

    Timeouts come from the baseline run: per-test durations plus the run's fixed
    overhead (start-up, collection); a test that hung in the baseline counts as a
    typical passing test. Every run also has per-test limits (:func:`test_limits`); the
    failing tests that hung in the baseline run last: the others reject most candidates
    sooner. With ``plugin_free`` (the suite was seen to give the same
    outcomes without the installed pytest plugins) both runs skip the plugins, which
    is much cheaper, and a third run confirms the whole suite with them. The probe and
    guard runs (near-miss detection) are the same runs without ``-x``, with a report; the
    sweep is the probe with plain assertions (a mutant's).
    """
    failing = [t for t in loc.tests if t.outcome == "failed"]
    passing = [t.duration for t in loc.tests if t.outcome == "passed"]
    overhead = max(0.0, loc.elapsed_s - sum(t.duration for t in loc.tests))
    typical = statistics.median(passing) if passing else 0.1
    fail_durations = [typical if t.timed_out else t.duration for t in failing]
    full = stage_timeout(overhead + sum(passing) + sum(fail_durations), cap)
    ids = (frozenset(t.nodeid for t in failing), frozenset(t.nodeid for t in loc.tests if t.outcome == "passed"))
    if not command.is_pytest:
        return Checks([Stage((), full)], None, None, *ids)
    select.write_text(json.dumps([t.nodeid for t in sorted(failing, key=lambda t: t.timed_out)]))
    files = [] if command.pytest_args else list(dict.fromkeys(t.path for t in failing if t.path))
    env = testcmd.NO_PLUGINS if plugin_free else ()
    slow = [f for f in testcmd.FAST_FLAGS if f != "-x"]
    selected = (*(command.pytest_args or files),)
    limits = test_limits(loc, select.with_name("limits.json"), cap)
    select_env = (("CODUR_REPAIR_SELECT", str(select)), *limits, *env)
    first_timeout = stage_timeout(overhead + sum(fail_durations), cap)
    first = Stage((*selected, *testcmd.FAST_FLAGS, "-p", testcmd.PLUGIN), first_timeout, select_env)
    whole = Stage((*command.pytest_args, *testcmd.FAST_FLAGS, "-p", testcmd.PLUGIN), full, limits)
    probe = Stage((*selected, *testcmd.PROBE_FLAGS, "-p", testcmd.PLUGIN), first_timeout, select_env, report=True)
    guard = Stage((*command.pytest_args, *slow, "-p", testcmd.PLUGIN), full, (*limits, *env), report=True)
    stages = [first, Stage(whole.args, full, (*limits, *env)), whole] if plugin_free else [first, whole]
    sweep = Stage((*selected, *slow, "-p", testcmd.PLUGIN), first_timeout, select_env, report=True)
    return Checks(stages, probe, guard, *ids, sweep=sweep)


@dataclass(frozen=True)
class Baseline:
    """What the baseline run (the tests before any change) found, that the checks are built from.

    Attributes:
        loc: the localization (failing tests, covering map, durations).
        plugin_free: the run gave the same outcomes without the installed pytest plugins.
        selected: localization ran a selection of the suite (:mod:`codur.validate.selection`).
        may_fail: tests that failed before any change and are not among ``loc``'s failing ones.
        suite_s: seconds the whole suite took when observe ran it (0: unknown).
    """

    loc: localize.Localization
    plugin_free: bool = False
    selected: bool = False
    may_fail: frozenset[str] = frozenset()
    suite_s: float = 0.0


def selected_checks(baseline: Baseline, command: testcmd.TestCommand, folder: Path, cap: float) -> Checks:
    """The checks of a localization that ran a selection of the suite (see the module doc).

    Args:
        baseline: what the baseline found (its ``selected`` is not read).
        command: the test command (a pytest one).
        folder: where the selection files are written.
        cap: seconds, at most, of a stage other than the whole suite.
    """
    loc, plugin_free, may_fail, suite_s = baseline.loc, baseline.plugin_free, baseline.may_fail, baseline.suite_s
    base = whole_suite_checks(loc, command, folder / "select.json", cap, plugin_free)
    env = testcmd.NO_PLUGINS if plugin_free else ()
    slow = [f for f in testcmd.FAST_FLAGS if f != "-x"]
    durations = {t.nodeid: t.duration for t in loc.tests}
    overhead = max(0.0, loc.elapsed_s - sum(durations.values()))
    gate_s = max(cap, GATE_FACTOR * suite_s + GATE_SLACK_S) if suite_s else max(cap, 120.0)
    whole = tuple(command.pytest_args or ())
    limits = test_limits(loc, folder / "limits.json", cap)
    # the gate runs tests the selection did not: they passed observe's per-test limit
    unseen = test_limits(loc, folder / "limits-gate.json", gate_s, unseen_s=testcmd.TEST_TIMEOUT_S)
    if may_fail:
        gate = Stage((*whole, *slow, "-p", testcmd.PLUGIN), gate_s, unseen, report=True, may_fail=may_fail)
    else:
        gate = Stage((*whole, *testcmd.FAST_FLAGS, "-p", testcmd.PLUGIN), gate_s, unseen)
    made: dict[tuple[frozenset[str], bool], Stage] = {}

    def covered(tests: frozenset[str], report: bool) -> Stage:
        """The run of ``tests`` (stop at the first failure unless ``report``); one file per set."""
        if (tests, report) not in made:
            path = folder / f"covering-{len(made)}.json"
            path.write_text(json.dumps(sorted(tests)))
            files = [] if command.pytest_args else sorted({file_of(t) for t in tests})
            flags = slow if report else testcmd.FAST_FLAGS
            timeout = stage_timeout(overhead + sum(durations.get(t, 0.1) for t in tests), cap)
            made[(tests, report)] = Stage((*whole, *files, *flags, "-p", testcmd.PLUGIN), timeout,
                                          (("CODUR_REPAIR_SELECT", str(path)), *limits, *env), report=report)
        return made[(tests, report)]

    return Checks(base.stages[:1], base.probe, None, base.failing, base.passing,
                  covering=dict(loc.covering), gate=gate, covered=covered, sweep=base.sweep)


def checks_for(baseline: Baseline, command: testcmd.TestCommand, folder: Path, cap: float) -> Checks:
    """:func:`selected_checks` when localization ran a selection (``baseline.selected``, a
    pytest command), else :func:`whole_suite_checks`. ``folder``: where the selection files
    are written; ``cap``: seconds, at most, of a stage other than the whole suite."""
    if baseline.selected and command.is_pytest:
        return selected_checks(baseline, command, folder, cap)
    return whole_suite_checks(baseline.loc, command, folder / "select.json", cap, baseline.plugin_free)
