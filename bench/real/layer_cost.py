"""bench/real/layer_cost.py: what a test run's copy-on-write layer costs against noting each file.

Issue 52 (the user's edits are theirs) chose between two ways of telling the suite's writes
from the user's: the repo's tests see it through an overlay (codur.sandbox.overlay: the suite
writes a layer that is reported and dropped), or every file of the repo is noted before each
test run and compared after it (codur.tools.snapshot, what runs without an overlay). This
builds one bug repo per bench/real project (bugs.py; no model) and runs its whole suite through
codur's test tool, ``--runs`` times each way, alternating, and prints the median wall time of a
run each way, and the time of the noting alone (take + compare, without the suite).

Usage:
  .venv/bin/python bench/real/layer_cost.py [--runs 5] [--bugs ID,PREFIX]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bugs  # noqa: E402

from codur.tools import ToolExecutor, ToolSettings, snapshot, testing  # noqa: E402


def _timed(tools: ToolExecutor, layer: bool) -> float:
    testing.layered = (lambda: layer) if not layer else _LAYERED  # the way under test
    started = time.perf_counter()
    tools.run_tests(caller="verify")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bugs", default="", help="bug ids or prefixes, comma-separated (default: one per project)")
    args = parser.parse_args()
    wanted = [w for w in args.bugs.split(",") if w]
    chosen, seen = [], set()
    for bug in bugs.load():
        if (wanted and any(bug.id.startswith(w) for w in wanted)) or (not wanted and bug.package not in seen):
            chosen.append(bug)
            seen.add(bug.package)
    if not _LAYERED():
        raise SystemExit("no overlay here (bubblewrap cannot mount one): nothing to compare")
    print(f"{'bug':32} {'files':>6} {'layer s':>8} {'noted s':>8} {'noting alone s':>15}")
    for bug in chosen:
        with tempfile.TemporaryDirectory() as tmp:
            repo = bugs.build(bug, Path(tmp) / "repo")
            tools = ToolExecutor(repo, ToolSettings(timeout_s=600), run_dir=Path(tmp) / "run")
            _timed(tools, True)  # warm the caches once
            layer, noted, alone = [], [], []
            for _ in range(args.runs):
                layer.append(_timed(tools, True))
                noted.append(_timed(tools, False))
                started = time.perf_counter()
                snapshot.changes(tools.ctx, snapshot.take(tools.ctx))
                alone.append(time.perf_counter() - started)
            files = len(tools.ctx.walk("."))
            print(f"{bug.id:32} {files:>6} {statistics.median(layer):>8.3f} {statistics.median(noted):>8.3f} "
                  f"{statistics.median(alone):>15.4f}", flush=True)
    testing.layered = _LAYERED


_LAYERED = testing.layered

if __name__ == "__main__":
    main()
