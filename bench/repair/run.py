"""Benchmark of codur's mutation repair (the main job with the mutation fixer only) on the corpora in bench/repair/.

Usage: .venv/bin/python bench/repair/run.py [--corpus main|taxonomy|both] [--workers N]
                                            [--compare] [--cold] [--check] [--only SUBSTR]

Two corpora: ``corpus/`` (41 programs, mostly off-by-one and wrong-operator bugs) and
``corpus_taxonomy/`` (40 programs whose bugs follow the SStuB pattern mix of TSSB-3M; see
README.md). Each program (one module, its tests, ``meta.json`` with the bug class,
whether one edit can fix it, and the reference fix) is copied to a temp dir and repaired
there by the product: ``codur.run`` with the settings ``fixers = ["mutation"]``, no critic
(what ``codur repair`` runs), so the patch is verified by the whole suite and written in
the copy. Printed per program: fixed?, whether the patch equals the reference
fix, mutants tried, seconds. Then, for each corpus apart, the totals: fixed / total,
share of the single-edit bugs fixed, mutants tried, median time to fix, time in start-up
+ localization vs in the search, wall time; with both corpora, a combined line after
them. With --compare the corpora also run with 1 worker and the speedups of N workers
over 1 (whole run, search alone) are printed. The pytest fork server stays warm from one
program to the next of a corpus, as in an agent session that repairs repeatedly; each
corpus starts cold, and --cold starts a new one for every program.
--check only verifies the corpora: every bug fails its tests (or runs past the timeout:
some bugs loop forever), every reference fix passes; it exits 1 if any program does not.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

CORPORA = {"main": Path(__file__).parent / "corpus", "taxonomy": Path(__file__).parent / "corpus_taxonomy"}
HELDOUT = Path(__file__).parent / "heldout"  # held-out tests, one per program that has one: never shown to codur
HELDOUT_TIMEOUT_S = 60.0  # a held-out test loops only on a wrong patch; the margin is for a loaded machine
CHECK_TIMEOUT_S = 10.0  # per pytest run in --check; bugs that loop forever end as "timeout"
TASK = "make the failing tests pass"  # codur repair's


def programs(corpus: str, only: str | None) -> list[Path]:
    return [p for p in sorted(CORPORA[corpus].iterdir()) if p.is_dir() and (not only or only in p.name)]


def _reference(program: Path) -> tuple[dict, str, str]:
    meta = json.loads((program / "meta.json").read_text())
    fix = meta["fix"]
    text = (program / fix["file"]).read_text()
    if text.count(fix["old"]) != 1:
        raise SystemExit(f"{program.name}: reference fix does not match exactly once")
    return meta, text, text.replace(fix["old"], fix["new"])


def _pytest(directory: Path, paths: list[str] | None = None, timeout: float = CHECK_TIMEOUT_S) -> int | str:
    """pytest's exit code in ``directory`` (on ``paths`` only, when given), or "timeout" after
    ``timeout`` seconds (the process is killed)."""
    try:
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *(paths or [])],
                              cwd=directory, capture_output=True, timeout=timeout,
                              check=False).returncode
    except subprocess.TimeoutExpired:
        return "timeout"


def held_out(program: Path, work: Path) -> bool | None:
    """Run the program's held-out test (``heldout/<program>.py``, never in the copy codur
    repairs) against the module in ``work``: True when it passes, None when the program has none.
    The test is copied in under a name of its own and removed after."""
    test = HELDOUT / f"{program.name}.py"
    if not test.is_file():
        return None
    target = work / "test_zz_heldout.py"
    shutil.copy2(test, target)
    try:
        return _pytest(work, [target.name], HELDOUT_TIMEOUT_S) == 0
    finally:
        target.unlink()


def check(program: Path) -> str:
    """One line, starting "ok " when the bug fails (exit 1) or hangs and the fix passes (the
    held-out test too, where the program has one)."""
    meta, _, fixed = _reference(program)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(shutil.copytree(program, Path(tmp) / program.name))
        buggy_rc = _pytest(work)
        buggy_held = held_out(program, work)
        (work / meta["fix"]["file"]).write_text(fixed)
        fixed_rc = _pytest(work)
        fixed_held = held_out(program, work)
    ok = buggy_rc in (1, "timeout") and fixed_rc == 0 and fixed_held is not False
    held = "" if fixed_held is None else f"; held-out test: bug {'passes' if buggy_held else 'fails'}, " \
        f"fix {'passes' if fixed_held else 'FAILS'}"
    return f"{'ok ' if ok else 'BAD'} {program.name}: buggy exit {buggy_rc}, fixed exit {fixed_rc}{held}"


def run_one(program: Path, corpus: str, workers: int, args: argparse.Namespace) -> dict:
    # here, not at the top: --check runs without codur
    from codur import RunRequest, run
    from codur.config import load_config

    meta, _, fixed = _reference(program)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(shutil.copytree(program, Path(tmp) / program.name,
                                    ignore=shutil.ignore_patterns("meta.json", "__pycache__")))
        marks: dict[str, float] = {}
        seen: dict[str, dict] = {}

        def on_event(event: dict) -> None:
            marks.setdefault(event["event_type"], time.monotonic())
            seen[event["event_type"]] = event

        config = load_config(work, fixers=["mutation"], critic=False, repair_workers=workers,
                             max_mutants=args.max_mutants, patch_time_budget_s=args.time_budget,
                             mutant_timeout_s=args.mutant_timeout)
        start = time.monotonic()
        result = run(RunRequest(task=TASK, repo=work, timeout_s=max(config.timeout_s, args.time_budget + 120.0)),
                     config=config, on_event=on_event)
        exact = result.ok and (work / meta["fix"]["file"]).read_text() == fixed
        correct = held_out(program, work) if result.ok else (False if (HELDOUT / f"{program.name}.py").is_file()
                                                             else None)
    done = seen.get("patch.done", {})
    search = result.metadata.stop.get("search") or {}
    return {"name": program.name, "corpus": corpus, "single": meta["single_edit"],
            "status": done.get("status") or result.reason, "fixed": result.ok, "exact": exact,
            "correct": correct, "plausible": result.reason == "plausible",
            "tried": sum((done.get("tried") or {}).values()), "time": result.duration_s,
            "patch": seen.get("patch.found", {}).get("label", ""),
            "message": search.get("message") or done.get("message") or result.reason,
            "search": marks.get("patch.done", start) - marks.get("patch.mutants", marks.get("patch.done", start)),
            "setup": marks.get("patch.localized", start) - start}


def run_corpus(corpus: str, workers: int, args: argparse.Namespace) -> tuple[list[dict], float]:
    from codur.testing.forkserver import close_warm_runners

    close_warm_runners()  # each corpus starts cold
    rows, start = [], time.monotonic()
    print(f"== {corpus}: {workers} worker(s) ==")
    for program in programs(corpus, args.only):
        if args.cold:
            close_warm_runners()
        row = run_one(program, corpus, workers, args)
        rows.append(row)
        mark = ("PLAUSIBLE" if row["plausible"] else "FIXED") if row["fixed"] else row["status"]
        kind = "single" if row["single"] else "multi "
        exact = "exact" if row["exact"] else "     "
        correct = {True: "correct", False: "WRONG  ", None: "-      "}[row["correct"]] if row["fixed"] else "       "
        print(f"{row['name']:<24} {kind} {mark:<10} {exact} {correct} tried={row['tried']:<4} "
              f"{row['time']:6.2f}s  {row['patch'] or row['message']}", flush=True)
    return rows, time.monotonic() - start


def summary(rows: list[dict], wall: float) -> None:
    fixed = [r for r in rows if r["fixed"]]
    single = [r for r in rows if r["single"]]
    single_fixed = [r for r in single if r["fixed"]]
    print(f"fixed: {len(fixed)}/{len(rows)} (exact reference fix: {sum(r['exact'] for r in rows)})")
    judged = [r for r in rows if r["correct"] is not None]
    print(f"correct (held-out test passes): {sum(r['correct'] is True for r in judged)}/{len(judged)} programs "
          f"with a held-out test ({sum(r['fixed'] for r in judged)} of them fixed)")
    print(f"single-edit bugs fixed: {len(single_fixed)}/{len(single)} "
          f"= {100 * len(single_fixed) / max(1, len(single)):.0f}%")
    print(f"multi-edit bugs fixed: {len(fixed) - len(single_fixed)}/{len(rows) - len(single)}")
    print(f"held back (success / plausible, not verified): {sum(r['plausible'] for r in fixed)}")
    print(f"mutants tried: {sum(r['tried'] for r in rows)}")
    if fixed:
        print(f"median time to fix: {statistics.median(r['time'] for r in fixed):.2f}s")
    print(f"time in start-up + localization: {sum(r['setup'] for r in rows):.1f}s, "
          f"in the mutant search: {sum(r['search'] for r in rows):.1f}s")
    print(f"wall time: {wall:.1f}s")


def combined(rows: list[dict], wall: float) -> None:
    """One line over all corpora of a pass."""
    fixed = [r for r in rows if r["fixed"]]
    single = [r for r in rows if r["single"]]
    median = f"{statistics.median(r['time'] for r in fixed):.2f}s" if fixed else "-"
    judged = [r for r in rows if r["correct"] is not None]
    print(f"combined: fixed {len(fixed)}/{len(rows)} (exact {sum(r['exact'] for r in rows)}; correct "
          f"{sum(r['correct'] is True for r in judged)}/{len(judged)} with a held-out test), single-edit fixed "
          f"{sum(r['fixed'] for r in single)}/{len(single)}, mutants tried {sum(r['tried'] for r in rows)}, "
          f"median time to fix {median}, wall time {wall:.1f}s")


def run_pass(corpora: list[str], workers: int, args: argparse.Namespace) -> tuple[list[dict], float]:
    """Every corpus in ``corpora`` with ``workers`` workers, each with its own summary."""
    rows, wall = [], 0.0
    for corpus in corpora:
        corpus_rows, corpus_wall = run_corpus(corpus, workers, args)
        print(f"-- {corpus}, {workers} worker(s) --")
        summary(corpus_rows, corpus_wall)
        rows += corpus_rows
        wall += corpus_wall
    if len(corpora) > 1:
        combined(rows, wall)
    return rows, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=["main", "taxonomy", "both"], default="both",
                        help="which corpus to run (default: both, each with its own summary)")
    from codur.config import CodurConfig

    default = CodurConfig.default  # the settings' defaults, written once in codur/config/settings.py
    parser.add_argument("--workers", type=int, default=default("repair_workers"))
    parser.add_argument("--compare", action="store_true", help="also run with 1 worker")
    parser.add_argument("--check", action="store_true", help="only verify the corpora")
    parser.add_argument("--cold", action="store_true",
                        help="no warm pytest server between programs (each pays the start-up)")
    parser.add_argument("--only", help="programs whose name contains this")
    parser.add_argument("--max-mutants", type=int, default=default("max_mutants"))
    parser.add_argument("--time-budget", type=float, default=default("patch_time_budget_s"))
    parser.add_argument("--mutant-timeout", type=float, default=default("mutant_timeout_s"))
    args = parser.parse_args()
    corpora = ["main", "taxonomy"] if args.corpus == "both" else [args.corpus]
    if args.check:
        bad = 0
        for corpus in corpora:
            print(f"== {corpus} ==")
            lines = []
            for program in programs(corpus, args.only):
                lines.append(check(program))
                print(lines[-1], flush=True)
            failed = sum(line.startswith("BAD") for line in lines)
            print(f"{corpus}: {len(lines) - failed}/{len(lines)} ok")
            bad += failed
        raise SystemExit(1 if bad else 0)
    rows, wall = run_pass(corpora, args.workers, args)
    if args.compare:
        rows1, wall1 = run_pass(corpora, 1, args)
        print(f"speedup of {args.workers} workers over 1 (wall time): {wall1 / wall:.2f}x")
        search_n, search_1 = sum(r["search"] for r in rows), sum(r["search"] for r in rows1)
        print(f"speedup of {args.workers} workers over 1 in the mutant search alone: "
              f"{search_1 / search_n:.2f}x")


if __name__ == "__main__":
    main()
