"""How fast ``records(text)`` reads a long input (issue 54: a parse of 2M characters under a second).

    .venv/bin/python bench/rlm/records_speed.py                 # 2M characters of each format, 3 runs each
    .venv/bin/python bench/rlm/records_speed.py --size 400k --runs 5

Inputs: the development families' logs (``log_tasks.py``: key=value lines after a time and a level;
``ticket_tasks.py``: time-stamped lines with a few key=value fields), and two made here, JSON lines and
a tab-separated table, each a seeded generator of our own. No model. Prints, per format, the records
read, the unparsed lines, the best and median wall seconds of ``records(text)``, and the best CPU seconds
(``time.process_time``: the parse's own work, what the wall time is on an idle machine).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import log_tasks
import ticket_tasks
from niah import parse_size

from codur.rlm.records import records


def _json_lines(size: int, rng: random.Random) -> str:
    out, total = [], 0
    while total < size:
        line = json.dumps({"at": f"2026-07-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00",
                           "pump": f"P-{rng.randint(1, 400)}", "litres": round(rng.uniform(0, 90), 2),
                           "state": rng.choice(("on", "off", "fault")), "site": rng.choice(("east", "west"))})
        out.append(line)
        total += len(line) + 1
    return "\n".join(out) + "\n"


def _tsv(size: int, rng: random.Random) -> str:
    out, total = ["pump\tsite\tlitres\tstate"], 0
    while total < size:
        cells = (f"P-{rng.randint(1, 400)}", rng.choice(("east", "west")), str(rng.randint(0, 900)),
                 rng.choice(("on", "off")))
        line = "\t".join(cells)
        out.append(line)
        total += len(line) + 1
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="2m", help="characters of each input, e.g. 400k, 2m")
    parser.add_argument("--runs", type=int, default=3, help="timed parses of each input")
    args = parser.parse_args(argv)
    size, rng = parse_size(args.size), random.Random(54)
    inputs = {"key=value log (logs)": log_tasks.make_task("count", size, 0).context,
              "ticket log (tickets)": ticket_tasks.make_task("count", size, 0).context,
              "JSON lines (ours)": _json_lines(size, rng), "TSV table (ours)": _tsv(size, rng)}
    print(f"records(text), {args.runs} run(s) per input")
    print(f"  {'input':<22} {'chars':>10} {'records':>9} {'unparsed':>9} {'best s':>7} {'median s':>9} {'CPU s':>6}")
    for name, text in inputs.items():
        times, cpu = [], []
        for _ in range(args.runs):
            t0, c0 = time.perf_counter(), time.process_time()
            recs = records(text)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        print(f"  {name:<22} {len(text):>10,} {len(recs):>9,} {len(recs.unparsed):>9,} {min(times):>7.2f} "
              f"{statistics.median(times):>9.2f} {min(cpu):>6.2f}")


if __name__ == "__main__":
    main()
