"""The measurement of record as one table: the rows of ``accuracy.py --json`` runs (JSON lines, one row a task)
read together, per family and kind, at 50k / 400k / 2M characters, strict and lenient, with the median seconds;
then, per size, the held-out families' kinds grouped as issue 54's targets group them, and every miss.

    .venv/bin/python bench/rlm/record_table.py bench/rlm/results-2026-11-29-1da6225-*.jsonl \\
        bench/rlm/results-2026-11-30-1da6225-*.jsonl

A task met in several files counts once (the first file's row).
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

SIZES = (50_000, 400_000, 2_000_000)
HELD_OUT = ("builds", "parcels", "ledger")
ORDER = (*HELD_OUT, "logs", "tickets")
GROUPS = {"lookups and joins": ("lookup", "join"), "counts, sums and group-bys": ("count", "sum", "aggregate"),
          "absent": ("absent",)}


def family(row: dict) -> str:
    """The task family of a row (``builds:sum-50000-2`` -> builds; the logs family's ids have no prefix)."""
    return row["task"].split(":")[0] if ":" in row["task"] else "logs"


def load(paths: list[Path]) -> list[dict]:
    seen: dict[str, dict] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                seen.setdefault(row["task"], row)
    return list(seen.values())


def cell(rows: list[dict]) -> str:
    if not rows:
        return "–"
    n, strict, lenient = len(rows), sum(r["strict"] for r in rows), sum(bool(r["correct"]) for r in rows)
    both = f"{strict}/{n}" if strict == lenient else f"{strict}/{n} · {lenient}/{n}"
    return f"{both} ({statistics.median(r['seconds'] for r in rows):.0f} s)"


def table(rows: list[dict]) -> str:
    kinds = list(dict.fromkeys((family(r), r["kind"]) for r in sorted(rows, key=lambda r: ORDER.index(family(r)))))
    out = ["| family | kind | 50k | 400k | 2M |", "|---|---|---|---|---|"]
    for fam, kind in kinds:
        cells = [cell([r for r in rows if (family(r), r["kind"], r["size"]) == (fam, kind, size)]) for size in SIZES]
        out.append(f"| {fam}{' (held out)' if fam in HELD_OUT else ''} | {kind} | " + " | ".join(cells) + " |")
    out += ["", "| size | " + " | ".join(f"held-out {g}" for g in GROUPS) + " | " + " | ".join(ORDER) + " |",
            "|---|" + "---:|" * (len(GROUPS) + len(ORDER))]
    for size in SIZES:
        at = [r for r in rows if r["size"] == size]
        groups = []
        for kinds_of in GROUPS.values():
            g = [r for r in at if family(r) in HELD_OUT and r["kind"] in kinds_of]
            groups.append(f"{sum(r['strict'] for r in g)}/{len(g)} ({100 * sum(r['strict'] for r in g) / len(g):.0f}%)"
                          if g else "–")
        fams = [cell([r for r in at if family(r) == fam]) for fam in ORDER]
        out.append(f"| {size // 1000}k | " if size < 10**6 else "| 2M | ")
        out[-1] += " | ".join([*groups, *fams]) + " |"
    misses = [r for r in rows if not r["strict"]]
    out += ["", f"Misses ({len(misses)}):"]
    out += [f"- {r['task']}: {r['answer']!r} for {r['expected']!r} ({r['source']}, {r['iterations']} iterations, "
            f"{r['seconds']:.0f} s)" for r in misses]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", nargs="+", type=Path, help="JSON-lines files of accuracy.py rows")
    print(table(load(parser.parse_args().rows)))


if __name__ == "__main__":
    main()
