"""Start-up time of the ``codur`` command: the median wall time of ``codur --help`` (and
``codur --version``) over N runs, each a new process of the venv's console script.

    .venv/bin/python bench/startup/run.py [--runs 10]

The console script is the one beside this interpreter (``<venv>/bin/codur``); PYTHONPATH is
set to this checkout, so the code measured is this tree's. Target: under 0.5 s median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET_S = 0.5


def times(argv: list[str], runs: int) -> list[float]:
    """Wall seconds of ``runs`` runs of ``argv`` (each must exit 0)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    script = Path(sys.executable).parent / "codur"
    if not script.exists():
        raise SystemExit(f"no console script at {script}: pip install -e . in this venv first")
    times([str(script), "--help"], 1)  # warm the file cache and the .pyc files
    worst = 0.0
    for flag in ("--help", "--version"):
        runs = times([str(script), flag], args.runs)
        median = statistics.median(runs)
        worst = max(worst, median)
        print(f"codur {flag:<10} median {median:.3f}s  min {min(runs):.3f}s  max {max(runs):.3f}s  ({args.runs} runs)")
    print(f"target < {TARGET_S}s: {'met' if worst < TARGET_S else 'NOT met'}")


if __name__ == "__main__":
    main()
