"""bench/bigsuite: time to the first candidate and to the fix on a suite of 2,000+ tests.

The project is python-dateutil 2.9.0.post0 (its sdist's own suite: 2,032 tests, about 7 s
on 2 cores), with bugs injected by us (bugs.toml: recipes applied at run time, nothing of
the project stored here). Per bug and per mode, codur's main job runs on a fresh copy with
the project's own ``.venv``:

  whole     ``CODUR_SELECT_TESTS=0``: every check runs the whole suite (codur before test selection)
  selected  the default: localization and candidates run selected tests, the winner the whole suite

Printed per bug and mode: seconds to the first candidate tested (the first
``patch.candidate`` event, from the process start), seconds to the fix (the process's end,
when the suite then passes), status, fixer, candidates tried; then medians. The suite's own
time (one plain pytest run) is printed for reference. By default only mutation search runs
(``CODUR_FIXERS='["mutation"]'``: no model); ``--fixers`` changes that.

Usage:
  .venv/bin/python bench/bigsuite/run.py --check            # each bug applies and fails some tests
  .venv/bin/python bench/bigsuite/run.py [--bugs ID,..] [--modes whole,selected] [--timeout 300]
  .venv/bin/python bench/bigsuite/run.py --table bench/bigsuite/results/FILE.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
TASK = "make the failing tests pass"
#: A root conftest.py puts src/ on sys.path (as an editable install would, relative to the repo,
#: so a copy of the repo imports its own source).
CONFTEST = "import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'src'))\n"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sdists = _load("bench_sdists", HERE.parent / "real" / "sdists.py")  # the cache of sdists and venvs


def manifest() -> dict:
    """bugs.toml: ``project`` (package, version, sha256, requirements) and ``bug`` (id, what, edit)."""
    return tomllib.loads((HERE / "bugs.toml").read_text())


def build(project: dict, bug: dict | None, dest: Path) -> Path:
    """A copy of the project's sdist at ``dest`` with its own ``.venv`` and ``bug``'s edits.

    Raises:
        ValueError: an edit's ``old`` text is not found exactly once.
    """
    tree = sdists.sdist(project["package"], project["version"], project["sha256"])
    shutil.copytree(tree, dest, ignore=shutil.ignore_patterns(".unpacked"))
    (dest / "conftest.py").write_text(CONFTEST)
    for edit in (bug or {}).get("edit", []):
        path = dest / edit["file"]
        text = path.read_text()
        if text.count(edit["old"]) != 1:
            found = text.count(edit["old"])
            raise ValueError(f"{bug['id']}: {edit['file']}: the text to replace is found {found} times")
        path.write_text(text.replace(edit["old"], edit["new"]))
    sdists.clone_venv(sdists.venv_template(project["requirements"]), dest / ".venv")
    return dest


def suite(repo: Path, timeout: float = 600) -> tuple[int, int, float]:
    """(failed, passed, seconds) of one plain pytest run with the repo's .venv."""
    t0 = time.monotonic()
    proc = subprocess.run([str(repo / ".venv" / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-o", "addopts="], cwd=repo, capture_output=True, text=True, timeout=timeout)
    tail = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    counts = {w: int(n) for n, w in (p.split()[:2] for p in tail.split(" in ")[0].split(", ") if p[:1].isdigit())}
    return counts.get("failed", 0) + counts.get("error", 0), counts.get("passed", 0), time.monotonic() - t0


def codur(repo: Path, mode: str, fixers: str, timeout: float) -> tuple[list[dict], float]:
    """Run codur's main job on ``repo`` in ``mode``; (its JSON events with ``t`` = seconds from
    the start, wall seconds)."""
    script = Path(sys.executable).with_name("codur")
    cmd = [str(script), TASK, "--repo", str(repo), "--json", "--timeout", str(timeout)]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH") and
           not k.startswith("CODUR_")}
    env.update(CODUR_FIXERS=fixers, CODUR_SELECT_TESTS="0" if mode == "whole" else "1")
    t0 = time.time()
    proc = subprocess.Popen(cmd, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout + 120)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    events = []
    for line in out.splitlines():
        with contextlib.suppress(json.JSONDecodeError):
            event = json.loads(line)
            event["t"] = round(float(event.get("ts", t0)) - t0, 2)
            events.append(event)
    return events, time.time() - t0


def run_bug(project: dict, bug: dict, mode: str, fixers: str, timeout: float) -> dict:
    """One bug in one mode: build, run codur, judge with the whole suite; a results record."""
    with tempfile.TemporaryDirectory(prefix=f"bigsuite_{bug['id']}_") as tmp:
        repo = build(project, bug, Path(tmp) / "repo")
        events, wall = codur(repo, mode, fixers, timeout)
        failed, passed, _ = suite(repo)
    first = next((e["t"] for e in events if e.get("event_type") in ("patch.candidate", "repair.mutant")), None)
    localized = next((e for e in events if e.get("event_type") == "patch.localized"), {})
    result = next((e for e in events if e.get("event_type") == "run.result"), {})
    meta = result.get("metadata") or {}
    fixed = result.get("status") == "success" and failed == 0 and passed > 0
    tried = sum(1 for e in events if e.get("event_type") == "patch.candidate")
    return {"bug": bug["id"], "mode": mode, "fixed": fixed, "first_candidate_s": first,
            "fix_s": round(wall, 1) if fixed else None, "wall_s": round(wall, 1), "status": result.get("status", "?"),
            "reason": str(result.get("reason", ""))[:120], "fixer": meta.get("fixer", ""), "tried": tried,
            "localized_tests": localized.get("tests_run"), "summary": str(result.get("output_text", ""))[:300],
            "suite_after": {"failed": failed, "passed": passed}}


def print_table(recs: list[dict]) -> None:
    w = max(len(r["bug"]) for r in recs)
    print(f"\n{'bug':<{w}}  {'mode':<8} {'fixed':<5} {'1st cand s':>10} {'fix s':>6} {'tried':>5} "
          f"{'loc tests':>9}  fixer")
    for r in recs:
        first = f"{r['first_candidate_s']:.1f}" if r["first_candidate_s"] is not None else "-"
        fix = f"{r['fix_s']:.1f}" if r["fix_s"] is not None else "-"
        print(f"{r['bug']:<{w}}  {r['mode']:<8} {'✓' if r['fixed'] else '✗':<5} {first:>10} {fix:>6} {r['tried']:>5} "
              f"{r['localized_tests'] if r['localized_tests'] is not None else '-':>9}  {r['fixer'] or r['status']}")
    for mode in dict.fromkeys(r["mode"] for r in recs):
        rs = [r for r in recs if r["mode"] == mode]
        firsts = [r["first_candidate_s"] for r in rs if r["first_candidate_s"] is not None]
        fixes = [r["fix_s"] for r in rs if r["fix_s"] is not None]
        print(f"{mode}: fixed {len(fixes)}/{len(rs)}; median s to the first candidate "
              f"{statistics.median(firsts) if firsts else float('nan'):.1f}, to the fix "
              f"{statistics.median(fixes) if fixes else float('nan'):.1f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bugs", default="", help="comma list of bug ids (default: all)")
    ap.add_argument("--modes", default="whole,selected", help="comma list of whole, selected")
    ap.add_argument("--fixers", default='["mutation"]', help="CODUR_FIXERS for the runs (JSON list)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per codur run")
    ap.add_argument("--check", action="store_true", help="build each bug; how many tests it makes fail")
    ap.add_argument("--table", type=Path, metavar="FILE", help="only print the table of a results file")
    args = ap.parse_args(argv)
    if args.table:
        print_table([json.loads(x) for x in args.table.read_text().splitlines() if x.strip()])
        return 0
    data = manifest()
    project, chosen = data["project"], data["bug"]
    wanted = [b.strip() for b in args.bugs.split(",") if b.strip()]
    chosen = [b for b in chosen if not wanted or b["id"] in wanted]
    with tempfile.TemporaryDirectory(prefix="bigsuite_clean_") as tmp:
        failed, passed, seconds = suite(build(project, None, Path(tmp) / "repo"))
    print(f"{project['package']} {project['version']}: {passed} tests pass, {failed} fail, in {seconds:.1f} s "
          "(one plain pytest run, no bug)", flush=True)
    if args.check:
        bad = 0
        for bug in chosen:
            with tempfile.TemporaryDirectory(prefix="bigsuite_check_") as tmp:
                failed, passed, seconds = suite(build(project, bug, Path(tmp) / "repo"))
            bad += failed == 0
            print(f"{'✓' if failed else '✗'} {bug['id']:<20} {failed:>4} failing, {passed} passing, {seconds:.1f} s"
                  f"  {len(bug['edit'])} edit(s): {bug['what']}", flush=True)
        return 1 if bad else 0
    out = RESULTS / f"bigsuite-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    recs = []
    for bug in chosen:
        for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
            rec = run_bug(project, bug, mode, args.fixers, args.timeout)
            recs.append(rec)
            print(f"{'✓' if rec['fixed'] else '✗'} {bug['id']:<20} {mode:<8} first candidate "
                  f"{rec['first_candidate_s']}s, end {rec['wall_s']}s, {rec['status']}/{rec['reason'][:40]}",
                  flush=True)
            with out.open("a") as f:
                f.write(json.dumps(rec) + "\n")
    print_table(recs)
    print(f"\nresults: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
