"""bench/real: codur on real bugs from the release history of real pure-Python projects.

Each bug of bugs.toml is built at run time from two pinned PyPI sdists (see bugs.py): the
older release, plus the test functions its fix added or changed, plus the project's pinned
requirements in ``<repo>/.venv``. Downloads and venvs are cached under ~/.cache/codur-bench/.

Modes:
  (default)  per bug: build the bug repo in a temp dir, run
             ``codur "make the failing tests pass" --repo REPO --json --timeout S``, put the
             bug's test files back, run its suite with the repo's .venv: fixed when the
             failing tests pass and nothing else fails (codur's own status is not trusted);
             beside it the figures of codur's events (events.py): seconds to the first
             candidate, localization and mutant generation seconds, samples and seconds per
             sample, the model's replies (samples and fills), echoes, distinct candidates,
             model seconds and candidates per model-minute, the fixer; then the held-out
             check (heldout.py): the newer release's tests the bug repo did not take, run
             in a copy: correct when they pass too, and whether the patch is the
             developers' fix after normalization
  --check    no model: per bug, the failing tests fail on the bug (and nothing else does),
             and with the real fix (the newer release's files) every test passes; the
             held-out tests of each bug are selected (and cached)

Usage:
  .venv/bin/python bench/real/run.py --check [--bugs parse,cachetools-lfu-copy]
  .venv/bin/python bench/real/run.py [--bugs ID,PREFIX] [--timeout 600] [--out FILE] [--keep DIR]
  .venv/bin/python bench/real/run.py --table bench/real/results/FILE.jsonl
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bugs  # noqa: E402
import events  # noqa: E402
import heldout  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def select(all_bugs: list[bugs.Bug], spec: str) -> list[bugs.Bug]:
    """The bugs whose id starts with one of the comma-separated ``spec`` items (all when empty).

    Raises:
        SystemExit: an item matches no bug.
    """
    items = [s.strip() for s in spec.split(",") if s.strip()]
    if bad := [i for i in items if not any(b.id.startswith(i) for b in all_bugs)]:
        raise SystemExit(f"run.py: no bug matches {', '.join(bad)}")
    return [b for b in all_bugs if not items or any(b.id.startswith(i) for i in items)]


def fix_text(hunks: dict[str, int]) -> str:
    """``file:hunks`` of each fix file (``src/`` left out), e.g. ``humanize/filesize.py:1``."""
    return " ".join(f"{f.removeprefix('src/')}:{n}" for f, n in hunks.items())


# ---------------------------------------------------------------- --check

def check(bug: bugs.Bug) -> dict:
    """Build ``bug``, run its suite on the bug and with the real fix; the verdict and its figures."""
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"real_{bug.id}_") as tmp:
        repo = bugs.build(bug, Path(tmp) / bug.id)
        before = bugs.run_suite(bug, repo)
        bugs.apply_fix(bug, repo)
        after = bugs.run_suite(bug, repo)
    not_failing = [t for t in bug.failing if before.outcomes.get(t) not in ("FAILED", "ERROR")]
    others = [t for t in before.bad() if t not in bug.failing and t not in bug.flaky]
    fixed, why = bugs.judge(bug, after)
    ref = heldout.reference(bug)
    problems = ([f"passes on the bug: {', '.join(not_failing)}"] if not_failing else []) + \
               ([f"also fails on the bug: {', '.join(others[:5])}"] if others else []) + \
               ([f"with the fix: {why}"] if not fixed else [])
    return {"bug": bug.id, "project": bug.project, "versions": f"{bug.old}->{bug.new}", "ok": not problems,
            "failing": len(bug.failing), "suite": len(after.outcomes),
            "heldout": len(ref["heldout"]), "left_out": len(ref.get("changed", [])),
            "fix": fix_text(bugs.fix_hunks(bug)),
            "seconds": round(time.monotonic() - t0, 1), "problems": "; ".join(problems)}


def print_check(rows: list[dict]) -> None:
    w = max(len(r["bug"]) for r in rows)
    print(f"\n{'bug':<{w}}  {'versions':<14} {'ok':<3} {'failing':>7} {'suite':>6} {'held-out':>8} "
          f"{'left out':>8} {'s':>5}  fix (file:hunks)")
    for r in rows:
        print(f"{r['bug']:<{w}}  {r['versions']:<14} {'✓' if r['ok'] else '✗':<3} {r['failing']:>7} "
              f"{r['suite']:>6} {r['heldout']:>8} {r['left_out']:>8} {r['seconds']:>5.0f}  {r['fix']}")
        if r["problems"]:
            print(f"{'':<{w}}  ! {r['problems']}")
    projects = sorted({r["project"] for r in rows})
    multi = sum(1 for r in rows if len(r["fix"].split()) > 1 or any(int(x.rsplit(":", 1)[1]) > 1
                                                                   for x in r["fix"].split()))
    print(f"\n{sum(r['ok'] for r in rows)}/{len(rows)} bugs verified, {len(projects)} projects "
          f"({', '.join(projects)}); {multi} fixes span several hunks or files")


# ---------------------------------------------------------------- default: codur

def run_bug(bug: bugs.Bug, timeout: float, keep: Path | None = None) -> dict:
    """Build ``bug``, let codur fix it, judge with the bug's own tests; one results record.
    With ``keep``, the repo as codur left it (its run folder in .codur/ included, .venv not)
    is copied to ``keep/<bug id>``."""
    ref = heldout.reference(bug)
    with tempfile.TemporaryDirectory(prefix=f"real_{bug.id}_") as tmp:
        repo = bugs.build(bug, Path(tmp) / bug.id)
        pristine = Path(tmp) / "pristine"
        bugs.copy_tests(bug, repo, pristine)
        run = events.run_codur(repo, timeout)
        if keep:
            shutil.rmtree(keep / bug.id, ignore_errors=True)
            shutil.copytree(repo, keep / bug.id, symlinks=True, ignore=shutil.ignore_patterns(".venv"))
        bugs.copy_tests(bug, pristine, repo)
        fixed, why = bugs.judge(bug, bugs.run_suite(bug, repo))
        correct, missed, left = heldout.check(bug, repo, ref) if fixed else (False, [], [])
        same = fixed and heldout.same_as_fix(bug, repo)
    res = run.result()
    meta = res.get("metadata") or {}
    return {"bug": bug.id, "project": bug.project, "old": bug.old, "new": bug.new, "fixed": fixed, "judge": why,
            "correct": correct, "heldout": len(ref["heldout"]), "heldout_failing": missed[:20],
            "heldout_left_out": len(ref.get("changed", [])), "left_out_failing": left[:20],
            "same_fix": same, "equivalent": fixed and (same or correct is True),
            "status": res.get("status", ""), "reason": str(res.get("reason", ""))[:200],
            "seconds": run.seconds, **events.figures(run.events),
            "llm_calls": (meta.get("usage") or {}).get("llm_calls", 0), "timings": meta.get("timings", {}),
            "tests": bug.failing,
            "fix_hunks": bugs.fix_hunks(bug), "files_changed": meta.get("files_changed", [])}


def figures_text(r: dict) -> str:
    """The per-bug figures of a results record, for its progress line."""
    c = events.cell
    return (f"1st candidate {c(r.get('first_candidate_s'))}s, localization {c(r.get('localize_s'))}s, "
            f"mutants {c(r.get('mutants_s'), 2)}s, samples {r.get('samples', 0)} x {c(r.get('sample_s'))}s, "
            f"fills {r.get('fills', 0)}; model replies {r.get('replies', 0)}, echoes {r.get('echoes', 0)} "
            f"({_share(r.get('echo_share'))}), candidates {r.get('model_candidates', 0)} in "
            f"{c(r.get('model_s'))} model s ({c(r.get('candidates_per_model_min'))}/model-min)")


def _correct(r: dict) -> str:
    """The correct cell: ✓/✗ for a green run judged by held-out tests, - otherwise (older
    results files, red runs, bugs without held-out tests)."""
    return "-" if not r["fixed"] or r.get("correct") is None else "✓" if r["correct"] else "✗"


def _share(value: float | None) -> str:
    """A share as a whole percent, ``-`` for None."""
    return "-" if value is None else f"{100 * value:.0f}%"


def fixed_by(r: dict) -> str:
    """The name of the fixer that made a green record's applied fix (mutation, cloze,
    sampling, hybrid, agent; an older record's ``fixer`` words mapped back), '' for none."""
    return r.get("fixed_by") or events.FIXER_BY_WORDS.get(r.get("fixer") or "", r.get("fixer") or "")


def print_table(recs: list[dict]) -> None:
    """Per bug: fixed, wall seconds, seconds to the first candidate, localization seconds,
    mutant generation seconds, model patch samples and seconds per sample, model calls,
    failing tests, the model's replies (samples and fills), their echoes and echo share, the
    model's distinct candidates, model seconds and candidates per model-minute, the fixer
    and the real fix; then the totals (:func:`print_totals`). A figure a record lacks (a run
    that never got there, or a results file older than the figure) is ``-``."""
    if not recs:
        print("no results")
        return
    c = events.cell
    w = max(len(r["bug"]) for r in recs)
    print(f"\n{'bug':<{w}}  {'fixed':<5} {'correct':<7} {'held':>4} {'same':<4} {'s':>5} "
          f"{'1st cand':>8} {'loc s':>6} {'mut s':>6} {'samples':>7} "
          f"{'s/sample':>8} {'calls':>5} {'tests':>5} {'replies':>7} {'echoes':>6} {'echo%':>5} {'m-cand':>6} "
          f"{'model s':>7} {'cand/min':>8}  {'fixer':<10} real fix (file:hunks)")
    for r in recs:
        print(f"{r['bug']:<{w}}  {'✓' if r['fixed'] else '✗':<5} {_correct(r):<7} {r.get('heldout', '-'):>4} "
              f"{'✓' if r.get('same_fix') else '-':<4} {r['seconds']:>5.0f} "
              f"{c(r.get('first_candidate_s')):>8} {c(r.get('localize_s')):>6} {c(r.get('mutants_s'), 2):>6} "
              f"{r.get('samples', '-'):>7} {c(r.get('sample_s')):>8} {r['llm_calls']:>5} "
              f"{len(r['tests']):>5} {r.get('replies', '-'):>7} {r.get('echoes', '-'):>6} "
              f"{_share(r.get('echo_share')):>5} {r.get('model_candidates', '-'):>6} {c(r.get('model_s')):>7} "
              f"{c(r.get('candidates_per_model_min'), 2):>8}  {(fixed_by(r) or r['status'])[:10]:<10} "
              f"{fix_text(r['fix_hunks'])}")
    print_totals(recs)


def print_totals(recs: list[dict]) -> None:
    """Below the table: green, correct, the developers' fix and plausible counts; fixed,
    multi-hunk fixes, wall and median seconds; the fixes by fixer; the model's replies,
    echoes and their share, distinct candidates, model seconds and candidates per model-minute."""
    ok = [r for r in recs if r["fixed"]]
    judged = [r for r in ok if r.get("correct") is not None]
    same = sum(bool(r.get("same_fix")) for r in ok)
    print(f"\ngreen {len(ok)}/{len(recs)}; correct (held-out tests pass) {sum(r['correct'] is True for r in judged)}"
          f"/{len(judged)} green with held-out tests; the developers' fix (AST) {same}"
          f"; plausible (held back) {sum(r.get('reason', '').startswith('plausible') for r in ok)}")
    multi = [r for r in recs if len(r["fix_hunks"]) > 1 or any(n > 1 for n in r["fix_hunks"].values())]
    print(f"\nfixed {len(ok)}/{len(recs)}; multi-hunk or multi-file fixes: {sum(r['fixed'] for r in multi)}/"
          f"{len(multi)}; wall {sum(r['seconds'] for r in recs):.0f} s; median s (fixed) "
          f"{statistics.median(r['seconds'] for r in ok):.0f}" if ok else
          f"\nfixed 0/{len(recs)}; wall {sum(r['seconds'] for r in recs):.0f} s")
    fixers = Counter(fixed_by(r) or "?" for r in ok)
    correct = Counter(fixed_by(r) or "?" for r in judged if r["correct"] is True)
    if fixers:
        print("fixes by fixer: " + ", ".join(f"{k} {v} (correct {correct[k]})" for k, v in fixers.most_common()))
    replies, echoes = sum(r.get("replies", 0) for r in recs), sum(r.get("echoes", 0) for r in recs)
    found, model_s = sum(r.get("model_candidates", 0) for r in recs), sum(r.get("model_s") or 0.0 for r in recs)
    print(f"model: {replies} replies ({sum(r.get('fills', 0) for r in recs)} fills, "
          f"{sum(r.get('samples', 0) for r in recs)} samples), {echoes} echoes "
          f"({_share(echoes / replies if replies else None)}), {found} distinct candidates in {model_s:.0f} model s"
          f" ({events.cell(found * 60 / model_s if model_s else None, 2)} per model-minute)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bugs", default="", help="comma list of bug ids or id prefixes (default: all)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per codur run (default 600)")
    ap.add_argument("--check", action="store_true", help="verify every bug with its real fix; no model")
    ap.add_argument("--out", type=Path, help="results JSONL (default: results/real-<UTC time>.jsonl)")
    ap.add_argument("--keep", type=Path, metavar="DIR", help="keep each bug repo as codur left it in DIR/<id>")
    ap.add_argument("--table", type=Path, metavar="FILE", help="only print the table of a results file")
    args = ap.parse_args(argv)
    if args.table:
        print_table([json.loads(x) for x in args.table.read_text().splitlines() if x.strip()])
        return 0
    chosen = select(bugs.load(), args.bugs)
    if args.check:
        rows = []
        for bug in chosen:
            rows.append(check(bug))
            r = rows[-1]
            print(f"{'✓' if r['ok'] else '✗'} {bug.id:<36} {r['seconds']:>5.1f}s {r['problems']}", flush=True)
        print_check(rows)
        return 0 if all(r["ok"] for r in rows) else 1
    out = args.out or RESULTS / f"real-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    recs = []
    for bug in chosen:
        r = run_bug(bug, args.timeout, args.keep)
        recs.append(r)
        print(f"{'✓' if r['fixed'] else '✗'} {bug.id:<36} {r['seconds']:>6.0f}s  {r['status']}/{r['reason'][:50]}  "
              f"fixer={fixed_by(r) or '-'}  {figures_text(r)}  judge: {r['judge'][:60]}", flush=True)
        with out.open("a") as f:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print_table(recs)
    print(f"\nresults: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
