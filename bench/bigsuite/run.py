"""bench/bigsuite: time to the first candidate and to the fix on big suites and a big module.

Two projects (bugs.toml), with bugs injected by us (recipes applied at run time, nothing of
the projects stored here): python-dateutil 2.9.0.post0 (its sdist's own suite: 2,032
tests, about 7 s on 2 cores) and more-itertools 8.14.0 (one module of 4,333 lines,
``more_itertools/more.py``, the bugs past its line 3,900). Per bug and per mode, codur's
main job runs on a fresh copy with the project's own ``.venv``:

  whole     ``CODUR_SELECT_TESTS=0``: every check runs the whole suite (codur before test selection)
  selected  the default: localization and candidates run selected tests, the winner the whole suite

Printed per bug and mode, from codur's events (bench/real/events.py): seconds to the first
candidate tested (the first ``patch.candidate`` event, from the process start),
localization seconds (``patch.localized``), mutant generation seconds (``patch.mutants``),
seconds to the fix (the process's end, when the suite then passes), status, fixer,
candidates tried, tests localization ran; then medians. Each project's suite time (one
plain pytest run) is printed for reference. By default only mutation search runs
(``CODUR_FIXERS='["mutation"]'``: no model); ``--fixers`` changes that.

Usage:
  .venv/bin/python bench/bigsuite/run.py --check            # each bug applies and fails some tests
  .venv/bin/python bench/bigsuite/run.py [--bugs ID,PROJECT,..] [--modes whole,selected] [--timeout 300]
                                           [--out FILE] [--keep DIR]
  .venv/bin/python bench/bigsuite/run.py --table bench/bigsuite/results/FILE.jsonl
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
#: A root conftest.py puts src/ on sys.path (as an editable install would, relative to the repo,
#: so a copy of the repo imports its own source).
CONFTEST = "import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'src'))\n"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


sdists = _load("bench_sdists", HERE.parent / "real" / "sdists.py")  # the cache of sdists and venvs
events = _load("bench_events", HERE.parent / "real" / "events.py")  # codur's run and its figures


def manifest() -> dict:
    """bugs.toml: ``project`` (name → package, version, sha256, requirements) and ``bug``
    (project, id, what, edit: file, old, new)."""
    return tomllib.loads((HERE / "bugs.toml").read_text())


def select(bugs: list[dict], spec: str) -> list[dict]:
    """The bugs whose id or project is one of the comma-separated ``spec`` items (all when empty).

    Raises:
        SystemExit: an item names no bug and no project.
    """
    items = [s.strip() for s in spec.split(",") if s.strip()]
    if bad := [i for i in items if not any(i in (b["id"], b["project"]) for b in bugs)]:
        raise SystemExit(f"run.py: no bug or project {', '.join(bad)}")
    return [b for b in bugs if not items or b["id"] in items or b["project"] in items]


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


def run_bug(project: dict, bug: dict, mode: str, fixers: str, timeout: float, keep: Path | None = None) -> dict:
    """One bug in one mode: build, run codur, judge with the whole suite; a results record.
    With ``keep``, the repo as codur left it (its run folder in .codur/ included, .venv not)
    is copied to ``keep/<bug id>-<mode>``."""
    with tempfile.TemporaryDirectory(prefix=f"bigsuite_{bug['id']}_") as tmp:
        repo = build(project, bug, Path(tmp) / "repo")
        run = events.run_codur(repo, timeout, {"CODUR_FIXERS": fixers,
                                               "CODUR_SELECT_TESTS": "0" if mode == "whole" else "1"},
                               codur_env=False)
        if keep:
            shutil.rmtree(keep / f"{bug['id']}-{mode}", ignore_errors=True)
            shutil.copytree(repo, keep / f"{bug['id']}-{mode}", symlinks=True, ignore=shutil.ignore_patterns(".venv"))
        failed, passed, _ = suite(repo)
    result = run.result()
    fixed = result.get("status") == "success" and failed == 0 and passed > 0
    figures = events.figures(run.events)
    return {"bug": bug["id"], "project": bug["project"], "mode": mode, "fixed": fixed,
            "fix_s": run.seconds if fixed else None, "wall_s": run.seconds, "status": result.get("status", "?"),
            "reason": str(result.get("reason", ""))[:120], **figures, "tried": figures["candidates"],
            "summary": str(result.get("output_text", ""))[:300],
            "suite_after": {"failed": failed, "passed": passed}}


def print_table(recs: list[dict]) -> None:
    """Per bug and mode: fixed, seconds to the first candidate, localization and mutant
    generation seconds, seconds to the fix, candidates tried, tests localization ran, fixer;
    then per mode the medians. ``-``: not reached, or not in an older results file."""
    c = events.cell
    w = max(len(r["bug"]) for r in recs)
    print(f"\n{'bug':<{w}}  {'mode':<8} {'fixed':<5} {'1st cand s':>10} {'loc s':>6} {'mut s':>6} {'fix s':>6} "
          f"{'tried':>5} {'loc tests':>9}  fixer")
    for r in recs:
        print(f"{r['bug']:<{w}}  {r['mode']:<8} {'✓' if r['fixed'] else '✗':<5} {c(r['first_candidate_s']):>10} "
              f"{c(r.get('localize_s')):>6} {c(r.get('mutants_s'), 2):>6} {c(r['fix_s']):>6} {r['tried']:>5} "
              f"{r['localized_tests'] if r['localized_tests'] is not None else '-':>9}  {r['fixer'] or r['status']}")

    def median(rs: list[dict], key: str) -> str:
        found = [r[key] for r in rs if r.get(key) is not None]
        return c(statistics.median(found), 2 if key == "mutants_s" else 1) if found else "-"
    for mode in dict.fromkeys(r["mode"] for r in recs):
        rs = [r for r in recs if r["mode"] == mode]
        print(f"{mode}: fixed {sum(r['fixed'] for r in rs)}/{len(rs)}; median s to the first candidate "
              f"{median(rs, 'first_candidate_s')}, localization {median(rs, 'localize_s')}, mutant generation "
              f"{median(rs, 'mutants_s')}, to the fix {median(rs, 'fix_s')}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bugs", default="", help="comma list of bug ids or project names (default: all)")
    ap.add_argument("--modes", default="whole,selected", help="comma list of whole, selected")
    ap.add_argument("--fixers", default='["mutation"]', help="CODUR_FIXERS for the runs (JSON list)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per codur run")
    ap.add_argument("--check", action="store_true", help="build each bug; how many tests it makes fail")
    ap.add_argument("--out", type=Path, help="results JSONL (default: results/bigsuite-<UTC time>.jsonl)")
    ap.add_argument("--keep", type=Path, metavar="DIR", help="keep each repo as codur left it in DIR/<id>-<mode>")
    ap.add_argument("--table", type=Path, metavar="FILE", help="only print the table of a results file")
    args = ap.parse_args(argv)
    if args.table:
        print_table([json.loads(x) for x in args.table.read_text().splitlines() if x.strip()])
        return 0
    data = manifest()
    chosen = select(data["bug"], args.bugs)
    for name in dict.fromkeys(b["project"] for b in chosen):
        project = data["project"][name]
        with tempfile.TemporaryDirectory(prefix="bigsuite_clean_") as tmp:
            failed, passed, seconds = suite(build(project, None, Path(tmp) / "repo"))
        print(f"{project['package']} {project['version']}: {passed} tests pass, {failed} fail, in {seconds:.1f} s "
              "(one plain pytest run, no bug)", flush=True)
    if args.check:
        bad = 0
        for bug in chosen:
            with tempfile.TemporaryDirectory(prefix="bigsuite_check_") as tmp:
                failed, passed, seconds = suite(build(data["project"][bug["project"]], bug, Path(tmp) / "repo"))
            bad += failed == 0
            print(f"{'✓' if failed else '✗'} {bug['id']:<24} {failed:>4} failing, {passed} passing, {seconds:.1f} s"
                  f"  {len(bug['edit'])} edit(s): {bug['what']}", flush=True)
        return 1 if bad else 0
    out = args.out or RESULTS / f"bigsuite-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    recs = []
    for bug in chosen:
        for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
            rec = run_bug(data["project"][bug["project"]], bug, mode, args.fixers, args.timeout, args.keep)
            recs.append(rec)
            print(f"{'✓' if rec['fixed'] else '✗'} {bug['id']:<24} {mode:<8} first candidate "
                  f"{rec['first_candidate_s']}s, localization {rec['localize_s']}s, mutant generation "
                  f"{rec['mutants_s']}s, end {rec['wall_s']}s, {rec['status']}/{rec['reason'][:40]}", flush=True)
            with out.open("a") as f:
                f.write(json.dumps(rec) + "\n")
    print_table(recs)
    print(f"\nresults: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
