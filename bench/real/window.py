"""Model samples of long functions on real bugs: whole function vs. a window, seconds and fixes.

For each bug and each configuration, the candidate-patch pipeline runs with the sampling
fixer alone (no mutation search, so what fixes is the model) on the embedded model: K
samples, each judged by the tests. A plausible patch is then applied and judged by the bug's
own suite (``bugs.judge``). Configurations: ``whole`` (every function rewritten whole),
``lines@N`` (a function longer than N lines gives a window whose lines are rewritten),
``sr@N`` (the same window, answered with SEARCH/REPLACE blocks).

    flock /tmp/codur-heavy.lock .venv/bin/python bench/real/window.py \\
        --bugs humanize-naturalsize-float,parse-precision-zero-float --configs whole,lines@40,sr@40 --samples 4

One line per (bug, configuration) goes to ``results/window-<UTC time>.jsonl``; a table is printed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bugs  # noqa: E402

from codur.config import CodurConfig  # noqa: E402
from codur.llm.factory import ConfigModelProvider  # noqa: E402
from codur.patch import PatchPipeline, PatchSettings  # noqa: E402
from codur.patch import window as windows  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
TASK = "make the failing tests pass"


def failures_of(bug: bugs.Bug, repo: Path) -> str:
    """The failing tests' short tracebacks (pytest ``--tb=short``), cut to 1,200 characters."""
    cmd = [str(repo / ".venv" / "bin" / "python"), "-m", "pytest", "-q", "--tb=short", "-p", "no:cacheprovider",
           *bug.failing]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    out = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, env=env, timeout=300).stdout
    return out[out.find("= FAILURES =") if "= FAILURES =" in out else 0:][:1200]


def run(bug: bugs.Bug, config: str, samples: int, budget: float, models: list) -> dict:
    """One configuration on one bug: the pipeline's sample events and whether the bug got fixed."""
    fmt, _, threshold = config.partition("@")
    fmt = {"whole": "function", "lines": "function", "sr": "search_replace"}[fmt]
    windows.WINDOW_MIN_LINES = int(threshold) if threshold else 10**6
    events: list[dict] = []
    with tempfile.TemporaryDirectory(prefix=f"window_{bug.id}_") as tmp:
        repo = bugs.build(bug, Path(tmp) / bug.id)
        settings = dataclasses.replace(PatchSettings.from_config(CodurConfig()), fixers=("sampling",),
                                       samples=samples, sample_format=fmt, time_budget_s=budget, workers=2)
        t0 = time.monotonic()
        result = PatchPipeline(repo, settings, models=models, failures=failures_of(bug, repo), task=TASK,
                               on_event=events.append).run()
        seconds = time.monotonic() - t0
        fixed, why = False, result.status.value
        if result.diff:
            subprocess.run(["git", "apply"], input=result.diff, text=True, cwd=repo, check=True)
            fixed, why = bugs.judge(bug, bugs.run_suite(bug, repo))
    drawn = [e for e in events if e.get("event_type") == "patch.sample"]
    phase = next((e for e in events if e.get("event_type") == "patch.phase" and e.get("phase") == "sampling"), {})
    return {"bug": bug.id, "config": config, "fixed": fixed, "judge": why[:200], "status": result.status.value,
            "functions": phase.get("functions", []), "seconds": round(seconds, 1),
            "samples": [{k: e.get(k) for k in ("k", "variant", "outcome", "seconds", "tokens", "error", "reply")}
                        for e in drawn],
            "load": os.getloadavg()[0]}


def table(recs: list[dict]) -> None:
    print(f"\n{'bug':<30} {'config':<10} {'fixed':<5} {'samples':>7} {'s/sample':>9} {'candidates':>10} "
          f"{'no_code':>7} {'load':>5}")
    for r in recs:
        s = r["samples"]
        per = statistics.median(x["seconds"] for x in s) if s else 0
        cand = sum(x["outcome"] == "candidate" for x in s)
        bad = sum(x["outcome"] == "no_code" for x in s)
        print(f"{r['bug']:<30} {r['config']:<10} {'✓' if r['fixed'] else '✗':<5} {len(s):>7} {per:>9.1f} "
              f"{cand:>10} {bad:>7} {r['load']:>5.2f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bugs", required=True, help="comma list of bug ids")
    ap.add_argument("--configs", default="whole,lines@40,sr@40", help="comma list: whole, lines@N, sr@N")
    ap.add_argument("--samples", type=int, default=4, help="model samples per run (K)")
    ap.add_argument("--budget", type=float, default=300.0, help="seconds of one pipeline run")
    ap.add_argument("--out", type=Path, help="results JSONL (default: results/window-<UTC time>.jsonl)")
    ap.add_argument("--table", type=Path, metavar="FILE", help="only print the table of a results file")
    args = ap.parse_args(argv)
    if args.table:
        table([json.loads(x) for x in args.table.read_text().splitlines() if x.strip()])
        return 0
    chosen = [b for b in bugs.load() if b.id in args.bugs.split(",")]
    out = args.out or RESULTS / f"window-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}.jsonl"
    models = ConfigModelProvider(CodurConfig()).models_for("actor")
    recs = []
    for bug in chosen:
        for config in args.configs.split(","):
            r = run(bug, config, args.samples, args.budget, models)
            recs.append(r)
            print(json.dumps({k: r[k] for k in ("bug", "config", "fixed", "status", "seconds", "load")}), flush=True)
            for x in r["samples"]:
                print("   ", {k: v for k, v in x.items() if k != "reply"}, flush=True)
            with out.open("a") as f:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    table(recs)
    print(f"\nresults: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
