"""bench/cpu: seconds per model sample on a real project, alone and with the mutation backfill.

One bug of bench/real (built from its PyPI sdists, its own .venv) is searched by the candidate-patch
pipeline with the embedded model: a short mutation time box, then K model samples while the
mutants left over are tested beside the model (the backfill), as the CPU budget
(codur/core/cpu.py) allows. Per mode, a fresh model server (a cold prompt cache each time):

  alone   fixers = sampling only: no mutant runs beside the model
  share   one background test at normal priority beside the model (codur before the budget)
  pause   no background test while the model's threads hold every core (the default)
  idle    background tests at SCHED_IDLE while the model's threads hold every core

Printed per mode: seconds per sample (each model call, mean and per k), samples per minute of
the sampling phase, mutants tested during it, its ratio to ``alone``; one JSON line per mode
goes to results/cpu-<UTC time>.jsonl.

Usage (wrap it in the machine's heavy-run lock when others share it):
  .venv/bin/python bench/cpu/run.py [--bug cachetools-tlru-expired-overwrite] [--samples 3]
                                    [--modes alone,share,pause,idle]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "real"))

import bugs  # noqa: E402

from codur.config.tables import LocalModelSettings, ModelProfile  # noqa: E402
from codur.core import cpu  # noqa: E402
from codur.llm.factory import get_chat_model  # noqa: E402
from codur.llm.local import stop_shared_server  # noqa: E402
from codur.patch import PatchPipeline  # noqa: E402
from codur.patch.contracts import PatchSettings  # noqa: E402

RESULTS = HERE / "results"
MODES = ("alone", "share", "pause", "idle")


def settings(fixers: tuple[str, ...], samples: int, time_box_s: float) -> PatchSettings:
    return PatchSettings(fixers=fixers, workers=4, time_box_s=time_box_s, samples=samples, time_budget_s=900.0,
                         max_mutants=400, max_pairs=0, max_lines=80, sample_format="function", memory_mb=None,
                         mutant_timeout_s=30.0)


def run_mode(mode: str, bug: bugs.Bug, repo: Path, samples: int, time_box_s: float) -> dict:
    """One pipeline run in ``mode``; its figures."""
    cpu.budget().while_generating = "share" if mode == "alone" else mode
    fixers = ("sampling",) if mode == "alone" else ("mutation", "sampling")
    cancel = threading.Event()
    events: list[tuple[float, dict]] = []

    def on_event(event: dict) -> None:
        events.append((time.monotonic(), event))
        if event.get("event_type") == "patch.phase" and str(event.get("phase", "")).endswith("(rest)"):
            cancel.set()  # the sampling phase is over: that is all this bench measures

    def models() -> list:
        return [get_chat_model(ModelProfile(), LocalModelSettings())]

    load = os.getloadavg()[0]
    watch = Watch().start()
    pipeline = PatchPipeline(repo, settings(fixers, samples, time_box_s), models=models, task=bugs_task(bug),
                             cancel=cancel, on_event=on_event, focus=list(bug.failing),
                             failing_before=list(bug.failing))
    try:
        result = pipeline.run()
    finally:
        watch.stop()
        stop_shared_server()
    start = next((t for t, e in events if e.get("event_type") == "patch.phase" and e.get("phase") == "sampling"
                  and "functions" in e), None)
    drawn = [(t, e) for t, e in events if e.get("event_type") == "patch.sample"]
    end = drawn[-1][0] if drawn else time.monotonic()
    phase_s = (end - start) if start is not None else 0.0
    mutants = sum(1 for t, e in events if e.get("event_type") == "patch.candidate" and e.get("source") == "mutation"
                  and start is not None and start <= t <= end)
    seconds = [e["seconds"] for _, e in drawn if e.get("outcome") != "error"]
    return {"mode": mode, "bug": bug.id, "samples": len(seconds), "per_sample_s": [round(s, 1) for s in seconds],
            "variants": [e.get("variant") for _, e in drawn], "mean_s": round(statistics.mean(seconds), 1)
            if seconds else None, "samples_per_min": round(60 * len(seconds) / phase_s, 2) if phase_s else None,
            "sampling_s": round(phase_s, 1), "mutants_beside_model": mutants, "status": result.status.value,
            "cores": cpu.budget().cores, "model_threads": LocalModelSettings().threads,
            "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2),
            "tokens": [e.get("tokens") for _, e in drawn], **watch.summary(start, end),
            "errors": [e.get("error") for _, e in drawn if e.get("outcome") == "error"]}


def _machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine since boot (/proc/stat's first line)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


class Watch:
    """Every 0.5 s: whether the model generates (the CPU budget's count), this process's CPU
    seconds (the model's threads run in it) and the machine's busy share."""

    def __init__(self) -> None:
        self.points: list[tuple[float, int, float, float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Watch:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            t = os.times()
            busy, total = _machine_busy()
            self.points.append((time.monotonic(), cpu.budget().model_threads_busy, t.user + t.system, busy, total))

    def summary(self, start: float | None, end: float) -> dict:
        """Over the sampling phase: the share of its time the model generated, the cores this
        process (the model's threads, codur's Python) used while it did, the machine's busy cores."""
        pts = [p for p in self.points if start is not None and start <= p[0] <= end]
        gen_wall = own = 0.0
        for a, b in zip(pts, pts[1:], strict=False):
            if a[1] and b[1]:
                gen_wall += b[0] - a[0]
                own += b[2] - a[2]
        hz = os.sysconf("SC_CLK_TCK")
        busy = ((pts[-1][3] - pts[0][3]) / hz / (pts[-1][0] - pts[0][0])) if len(pts) > 1 else 0.0
        phase = (pts[-1][0] - pts[0][0]) if len(pts) > 1 else 0.0
        return {"generating_share": round(gen_wall / phase, 2) if phase else None,
                "model_cores_while_generating": round(own / gen_wall, 2) if gen_wall else None,
                "machine_busy_cores": round(busy, 2)}


def bugs_task(bug: bugs.Bug) -> str:
    return "make the failing tests pass"


def commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True)
    return proc.stdout.strip() or "?"


def print_table(rows: list[dict]) -> None:
    alone = next((r["mean_s"] for r in rows if r["mode"] == "alone" and r["mean_s"]), None)
    print(f"\n{'mode':<6} {'samples':>7} {'s/sample':>9} {'x alone':>8} {'samples/min':>12} {'mutants':>8} "
          f"{'load':>10}  per sample (s)")
    for r in rows:
        ratio = f"{r['mean_s'] / alone:.2f}" if alone and r["mean_s"] else "-"
        print(f"{r['mode']:<6} {r['samples']:>7} {r['mean_s'] or '-':>9} {ratio:>8} {r['samples_per_min'] or '-':>12} "
              f"{r['mutants_beside_model']:>8} {r['load_before']:>4}-{r['load_after']:<5}  "
              f"{' '.join(map(str, r['per_sample_s']))}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bug", default="cachetools-tlru-expired-overwrite", help="a bench/real bug id")
    ap.add_argument("--samples", type=int, default=3, help="model samples per mode (K)")
    ap.add_argument("--time-box", type=float, default=3.0, help="seconds of mutation search before the model")
    ap.add_argument("--modes", default="alone,pause", help=f"comma list of {', '.join(MODES)}")
    ap.add_argument("--out", type=Path, help="results JSONL (default: results/cpu-<UTC time>.jsonl)")
    ap.add_argument("--table", type=Path, metavar="FILE", help="only print the table of a results file")
    args = ap.parse_args(argv)
    if args.table:
        print_table([json.loads(line) for line in args.table.read_text().splitlines() if line.strip()])
        return 0
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if bad := [m for m in modes if m not in MODES]:
        raise SystemExit(f"run.py: unknown mode {', '.join(bad)} (known: {', '.join(MODES)})")
    bug = next((b for b in bugs.load() if b.id == args.bug), None)
    if bug is None:
        raise SystemExit(f"run.py: no bug {args.bug}")
    out = args.out or RESULTS / f"cpu-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows, head = [], commit()  # the code this process imported
    with tempfile.TemporaryDirectory(prefix="bench_cpu_") as tmp:
        repo = bugs.build(bug, Path(tmp) / bug.id)
        for mode in modes:
            row = {**run_mode(mode, bug, repo, args.samples, args.time_box), "commit": head,
                   "date": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}
            rows.append(row)
            print(json.dumps(row), flush=True)
            with out.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
    print_table(rows)
    print(f"\nresults: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
