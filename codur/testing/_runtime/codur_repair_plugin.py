"""pytest plugin of codur's repair engine, loaded with ``-p codur_repair_plugin``. Standalone (no
codur import): it runs under the repository's own interpreter. Per run, environment variables say:

- ``CODUR_REPAIR_OUT=<path>``: write codur's one test report, JSON: per test, keyed by
  pytest's node id, its outcome ("passed", "failed": a failure or an error in any phase,
  or a collector that failed, keyed by the collector's id; "skipped": skipped, xfailed, or
  a skipped module), duration (seconds), traceback frames, the first failure's exception
  (``message``: pytest's one-paragraph form, at most :data:`MESSAGE_CHARS` characters) and
  traceback (``traceback``: pytest's report text in the run's ``--tb`` style), and per-test
  line coverage of files under ``CODUR_REPAIR_SOURCE`` (coverage.py dynamic contexts, or a
  ``sys.settrace`` fallback; none with ``CODUR_REPAIR_NO_COVERAGE=1``). Under
  pytest-xdist only the controller writes it (outcomes and tracebacks, no frames or
  coverage). Read by ``codur.testing.report.read_report``.
- ``CODUR_REPAIR_TEST_TIMEOUT=<seconds>``: a test running longer fails with TimeoutError
  raised by SIGALRM, so a hanging test still yields a traceback into the looping code,
  and the coverage it collected until then stays under its context. Its record gets
  ``timed_out`` and ``hang``: the stack (file, line; outermost first) where the alarm
  found it. A test that swallows the TimeoutError gets a ``TestHung`` (a BaseException)
  ``GRACE_S`` later. Once one test has hung, later ones get at most 2 s + 5x the longest
  passing test.
- ``CODUR_REPAIR_TEST_LIMITS=<path>``: JSON object node id -> seconds: that test's own
  limit (``CODUR_REPAIR_TEST_TIMEOUT`` is the limit of the tests it does not name).
- ``CODUR_REPAIR_TIMEOUT_EXIT=<code>``: a run in which a test hit its time limit exits
  with ``<code>``; a test that swallows the TestHung too is abandoned: the report (when
  ``CODUR_REPAIR_OUT`` is set, with the coverage so far) is written and the process
  exits with ``<code>`` at once. Without it such a test gets a TestHung every ``GRACE_S``.
- ``CODUR_REPAIR_SELECT=<path>``: JSON list of node ids; only those (and their children)
  run, in the order of the list.
- ``CODUR_REPAIR_COLLECT=<path>``: write, once collection ends, the JSON list of the node
  ids the run collected (after the project's own deselection: ``-k``, ``-m``, its
  conftest hooks), then the ids of test modules that failed to collect. Used with
  ``--collect-only``: the project's suite, as its configuration defines it.
- ``CODUR_REPAIR_PROGRESS=<path>``: the file holds ``<tests done> <tests collected>``,
  rewritten as tests end (at most every ``PROGRESS_EVERY_S`` seconds), so a caller can
  say how far a long run is.
- ``CODUR_REPAIR_IDLE=1``: the test process switches itself to ``SCHED_IDLE`` before it
  collects (Linux; the processes its tests start inherit it): it takes only the cycles no
  other process wants (a mutant tested while the embedded model generates).
"""
import contextlib
import json
import os
import re
import signal
import sys
import threading
import time

import pytest

_state = {"tests": {}}
_FRAME_RES = (re.compile(r'File "([^"]+\.py)", line (\d+)'), re.compile(r"^(\S+\.py):(\d+)", re.MULTILINE))
MESSAGE_CHARS = 600  # longest failure message kept per test
GRACE_S = 1.0  # after the time limit: how long a test may take to let the interruption out
PROGRESS_EVERY_S = 0.5  # least seconds between two writes of the progress file


class TestHung(BaseException):  # noqa: N818  (the name a hung test's traceback shows)
    """Raised into a test that swallowed the TimeoutError of its time limit."""


class _Tracer:
    """Fallback line tracer used when coverage.py is not importable."""

    def __init__(self, root):
        self.root, self.context, self.data = root, "", {}

    def start(self):
        sys.settrace(self._global)
        threading.settrace(self._global)

    def stop(self):
        sys.settrace(None)
        threading.settrace(None)

    def switch_context(self, name):
        self.context = name

    def _global(self, frame, event, arg):
        path = frame.f_code.co_filename
        if not path.startswith(self.root) or "site-packages" in path:
            return None
        return self._local

    def _local(self, frame, event, arg):
        if event == "line":
            ctx = self.data.setdefault(self.context, {})
            ctx.setdefault(frame.f_code.co_filename, set()).add(frame.f_lineno)
        return self._local

    def lines(self):
        out = {}
        for ctx, files in self.data.items():
            for path, lines in files.items():
                for line in lines:
                    out.setdefault(path, {}).setdefault(line, []).append(ctx)
        return out


class _NoTracer:
    """Outcomes only (``CODUR_REPAIR_NO_COVERAGE=1``)."""

    def start(self):
        pass

    stop = start

    def switch_context(self, name):
        pass

    def lines(self):
        return {}


class _Coverage:
    def __init__(self, root):
        import coverage

        self.cov = coverage.Coverage(data_file=None, source=[root], config_file=False,
                                     omit=["*/site-packages/*", "*/.venv/*"])

    def start(self):
        self.cov.start()

    def stop(self):
        self.cov.stop()

    def switch_context(self, name):
        self.cov.switch_context(name)

    def lines(self):
        data = self.cov.get_data()
        return {path: data.contexts_by_lineno(path) for path in data.measured_files()}


def _record(nodeid):
    tests = _state["tests"]
    if nodeid not in tests:
        tests[nodeid] = {"outcome": "passed", "duration": 0.0, "path": "", "frames": []}
    return tests[nodeid]


def _stack(frame):
    out = []
    while frame is not None:
        out.append([frame.f_code.co_filename, frame.f_lineno])
        frame = frame.f_back
    return out[::-1]


def _on_alarm(signum, frame):
    _state["hung"] = True
    _state["fired"] += 1
    rec = _record(_state["current"])
    rec["timed_out"] = True
    if _state["fired"] == 1:
        rec["hang"] = _stack(frame)
        signal.setitimer(signal.ITIMER_REAL, GRACE_S)
        raise TimeoutError("codur: test exceeded its time limit")
    if _state["fired"] == 2 or _state["exit"] is None:
        signal.setitimer(signal.ITIMER_REAL, GRACE_S)
        raise TestHung("codur: test ignored the TimeoutError of its time limit")
    rec["outcome"] = "failed"  # swallowed both: give up on this run, keep what it measured
    rec["frames"] = rec["frames"] or rec["hang"]
    _write_report()
    os._exit(_state["exit"])


def _test_timeout(nodeid):
    limit = _state["limits"].get(nodeid, _state["timeout"])
    if _state.get("hung"):
        passed = [t["duration"] for t in _state["tests"].values() if t["outcome"] == "passed"]
        limit = min(limit, 2.0 + 5 * max(passed, default=0.0))
    return limit


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    if os.environ.get("CODUR_REPAIR_IDLE") == "1" and hasattr(os, "SCHED_IDLE"):
        with contextlib.suppress(OSError):  # one way: an unprivileged process cannot switch back
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    _state["timeout"] = float(os.environ.get("CODUR_REPAIR_TEST_TIMEOUT") or 0)
    limits = os.environ.get("CODUR_REPAIR_TEST_LIMITS")
    if limits:
        with open(limits) as fh:
            _state["limits"] = {k: float(v) for k, v in json.load(fh).items()}
    else:
        _state["limits"] = {}
    code = os.environ.get("CODUR_REPAIR_TIMEOUT_EXIT")
    _state["exit"] = int(code) if code else None
    if not os.environ.get("CODUR_REPAIR_OUT") or "tracer" in _state:
        return
    root = os.path.realpath(os.environ.get("CODUR_REPAIR_SOURCE", os.getcwd()))
    if os.environ.get("CODUR_REPAIR_NO_COVERAGE"):
        tracer = _NoTracer()
    else:
        try:
            tracer = _Coverage(root)
        except ImportError:
            tracer = _Tracer(root)
    _state.update(tracer=tracer, out=os.environ["CODUR_REPAIR_OUT"])
    tracer.start()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    tracer = _state.get("tracer")
    alarm = bool((_state.get("timeout") or _state.get("limits")) and hasattr(signal, "setitimer")
                 and threading.current_thread() is threading.main_thread())
    _state["current"] = item.nodeid
    if tracer:
        _record(item.nodeid)["path"] = str(item.path)
        tracer.switch_context(item.nodeid)
    if alarm:
        _state["fired"] = 0
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, _test_timeout(item.nodeid))
    try:
        yield
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        if tracer:
            tracer.switch_context("")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    if _state.get("fired"):  # the interruption got out of the test: no TestHung
        signal.setitimer(signal.ITIMER_REAL, 0)
    outcome = yield
    if "tracer" not in _state:
        return
    report = outcome.get_result()
    rec = _record(item.nodeid)
    if report.failed and call.excinfo is not None:
        if not rec.get("message"):
            try:
                rec["message"] = call.excinfo.exconly()[:MESSAGE_CHARS]
            except Exception:  # noqa: BLE001 - a repr that raises: no message
                rec["message"] = call.excinfo.typename
        for entry in call.excinfo.traceback:
            path = getattr(entry, "path", None) or entry.frame.code.path
            rec["frames"].append([str(path), entry.lineno + 1])


def _longrepr(report):
    try:
        return str(report.longrepr)
    except Exception:  # noqa: BLE001 - a repr that raises: no text
        return ""


def _progress(done, force=False):
    path = os.environ.get("CODUR_REPAIR_PROGRESS")
    now = time.monotonic()
    if not path or (not force and now - _state.get("progress_at", 0.0) < PROGRESS_EVERY_S):
        return
    _state["progress_at"] = now
    try:
        with open(path + ".part", "w") as fh:
            fh.write(f"{done} {_state.get('collected', 0)}")
        os.replace(path + ".part", path)
    except OSError:
        pass


def pytest_runtest_logreport(report):
    """Outcome, duration and traceback of each phase (the controller's view under xdist)."""
    if report.when == "teardown":
        _state["done"] = _state.get("done", 0) + 1
        _progress(_state["done"])
    if "tracer" not in _state:
        return
    rec = _record(report.nodeid)
    rec["duration"] += report.duration
    if report.failed:
        rec["outcome"] = "failed"
        rec["traceback"] = rec.get("traceback") or _longrepr(report)
    elif report.skipped and rec["outcome"] == "passed":
        rec["outcome"] = "skipped"


def pytest_collectreport(report):
    if report.failed and not report.skipped:
        _state.setdefault("broken", []).append(report.nodeid or "<collection>")
    if "tracer" not in _state or report.passed:
        return
    rec = _record(report.nodeid or "<collection>")
    if report.skipped:  # a module skipped as a whole
        rec["outcome"] = "skipped"
        return
    rec["outcome"] = "failed"
    text = _longrepr(report)
    rec["traceback"] = rec.get("traceback") or text
    for regex in _FRAME_RES:
        for path, line in regex.findall(text):
            rec["frames"].append([os.path.abspath(path), int(line)])


def pytest_collection_modifyitems(config, items):
    path = os.environ.get("CODUR_REPAIR_SELECT")
    if not path:
        return
    with open(path) as fh:
        wanted = json.load(fh)
    rank = {}
    for item in items:
        for i, w in enumerate(wanted):
            if item.nodeid == w or item.nodeid.startswith(w + "::"):
                rank[item] = i
                break
    keep = sorted((i for i in items if i in rank), key=rank.__getitem__)
    dropped = [i for i in items if i not in rank]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep


def pytest_collection_finish(session):
    _state["collected"] = len(session.items)
    _progress(0, force=True)
    path = os.environ.get("CODUR_REPAIR_COLLECT")
    if path:
        ids = [item.nodeid for item in session.items] + _state.get("broken", [])
        with open(path, "w") as fh:
            json.dump(ids, fh)


def _write_report():
    tracer = _state.pop("tracer", None)
    if tracer is None:
        return
    tracer.stop()
    payload = {"tests": _state["tests"], "lines": tracer.lines()}
    with open(_state["out"], "w") as fh:
        json.dump(payload, fh)


def pytest_sessionfinish(session, exitstatus):
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller reports
        tracer = _state.pop("tracer", None)
        if tracer is not None:
            tracer.stop()
    else:
        _write_report()
    if _state.get("exit") is not None and any(t.get("timed_out") for t in _state["tests"].values()):
        session.exitstatus = _state["exit"]
