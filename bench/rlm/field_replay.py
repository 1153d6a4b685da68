"""Replay the recorded RLM answers through the field check (issue 54), no model.

    .venv/bin/python bench/rlm/field_replay.py                 # every results-*.json / .jsonl here
    .venv/bin/python bench/rlm/field_replay.py --show-flagged  # and each answer the check flags

The results rows keep each run's answer, not what its code printed. So each task is made again from
its id (the generators are deterministic; a row whose ``expected`` the generator no longer gives is
left out) and the printed evidence a program reading the task would show is rebuilt from the task's
text, in three forms:

* ``lines``: the lines naming the question's ids whole, then the lines naming an id those lines give
  (a join's hop), at most 20 per name: what ``print(grep(...))`` shows;
* ``records``: the same lines as ``records(text)`` rows, printed as dicts;
* ``table``: the same lines under the header line of their blank-line-separated block, when that
  block is a CSV / TSV table;
* ``trace``: what the run's code printed, for rows that keep it (``printed``, written by
  ``accuracy.py`` since issue 54's field check; older rows keep only the answer).

For each row and form the field check (``other_field_value``) is asked of the recorded answer: a note
on a right answer (strict: the value alone) is a false alarm, a note on a wrong one a catch; an answer
right only leniently (the value inside its line, ``... shipped from warehouse=W-84``) is counted apart,
a note there asks for the value alone. Run it again with
``PYTHONPATH=<the codur folder of the commit before>`` to count the check as it was (it falls back to
``codur.rlm.evidence.other_field_value``).
"""

from __future__ import annotations

import argparse
import csv
import inspect
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ledger_tasks
import log_tasks
import parcel_tasks
import ticket_tasks

from codur.rlm.notes import whole_name
from codur.rlm.provenance import key_names
from codur.rlm.records import records

try:
    from codur.rlm.evidence import ID
    from codur.rlm.slots import other_field_value
except ImportError:  # the check before issue 54's change
    from codur.rlm.evidence import _ID as ID
    from codur.rlm.evidence import other_field_value

HERE = Path(__file__).resolve().parent
#: the check reads table rows printed without their header by the input's header (since issue 54)
READS_INPUT = "context" in inspect.signature(other_field_value).parameters
FAMILIES = {"logs": log_tasks, "tickets": ticket_tasks, "ledger": ledger_tasks, "parcels": parcel_tasks}
PER_NAME = 20
FORMS = ("lines", "records", "table", "trace")


def recorded_rows(folder: Path) -> list[dict]:
    """The RLM rows of every results file in ``folder``, each once per (task, answer)."""
    rows: dict[tuple[str, str], dict] = {}
    for path in sorted(folder.glob("results-*.json*")):
        text = path.read_text(encoding="utf-8")
        found = json.loads(text)["rows"] if path.suffix == ".json" else \
            [json.loads(line) for line in text.splitlines() if line.strip()]
        for row in found:
            if row.get("method") == "rlm" and row.get("answer"):
                rows.setdefault((row["task"], row["answer"]), {**row, "file": path.name})
    return list(rows.values())


def make_task(task_id: str):
    """The task of a row's id (``join-400000-3``, ``parcels:lookup-50000-0``)."""
    family, _, own = task_id.rpartition(":")
    kind, size, seed = own.rsplit("-", 2)
    return FAMILIES[family or "logs"].make_task(kind, int(size), int(seed))


def about_lines(question: str, lines: list[str]) -> list[str]:
    """The lines naming the question's ids whole, then those naming an id they give, ``PER_NAME`` a name."""
    names = key_names(question)
    picked: list[str] = []
    for name in names:
        pattern = whole_name(name)
        picked += [line for line in lines if pattern.search(line)][:PER_NAME]
    hops = {m.group(0) for line in picked for m in ID.finditer(line)} - set(names)
    for hop in sorted(hops):
        pattern = whole_name(hop)
        picked += [line for line in lines if pattern.search(line)][:PER_NAME]
    return list(dict.fromkeys(picked))


def _header(line: str) -> bool:
    delimiter = "\t" if "\t" in line else ","
    cells = next(csv.reader([line], delimiter=delimiter))
    return len(cells) >= 2 and all(re.fullmatch(r"[A-Za-z_][\w .-]*", c.strip()) for c in cells)


def evidence(task, picked: list[str]) -> dict[str, list[str]]:
    """The printed outputs of each form (``FORMS``) for the lines ``picked`` of ``task``'s text."""
    wanted = set(picked)
    rows = [repr(dict(r)) for r in records(task.context) if r.raw in wanted]
    tables: list[str] = []
    for block in task.context.split("\n\n"):
        head, _, body = block.partition("\n")
        mine = [line for line in body.splitlines() if line in wanted]
        if mine and _header(head):
            tables.append("\n".join([head, *mine]))
    return {"lines": ["\n".join(picked)], "records": ["\n".join(rows)], "table": tables}


def replay(rows: list[dict], show: bool, with_input: bool = True) -> dict[tuple[str, str], Counter]:
    """{(form, right / right, lenient only / wrong): Counter(flagged, quiet)} over ``rows``, and
    ("any", "left out"): Counter(generator changed). ``with_input``: the check is given the task's
    text (when it takes it, :data:`READS_INPUT`)."""
    counts: dict[tuple[str, str], Counter] = {}
    by_task: dict[str, list[dict]] = {}
    for row in rows:
        by_task.setdefault(row["task"], []).append(row)
    for task_id, mine in sorted(by_task.items()):
        task = make_task(task_id)
        picked = about_lines(task.question, task.context.splitlines())
        forms = evidence(task, picked)
        for row in mine:
            if task.answer != row["expected"]:
                counts.setdefault(("any", "left out"), Counter())["generator changed"] += 1
                continue
            verdict = "wrong" if not row["correct"] else \
                "right" if FAMILIES[task.family].score(task, row["answer"], strict=True) else "right, lenient only"
            forms["trace"] = row.get("printed") or []
            for form in (f for f in FORMS if forms[f] or f != "trace"):
                given = (task.context,) if with_input and READS_INPUT else ()
                note = other_field_value(task.question, row["answer"], forms[form], *given) if forms[form] else ""
                counts.setdefault((form, verdict), Counter())["flagged" if note else "quiet"] += 1
                if note and show:
                    print(f"{form} {verdict} {task_id} ({row['file']}): {row['answer']!r}\n  {note[:300]}")
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", type=Path, default=HERE, help="where the results files are")
    parser.add_argument("--show-flagged", action="store_true", help="print each flagged answer and its note")
    parser.add_argument("--without-input", action="store_true",
                        help="do not give the check the task's text (no table header read from it)")
    args = parser.parse_args(argv)
    rows = recorded_rows(args.folder)
    counts = replay(rows, args.show_flagged, with_input=not args.without_input)
    reads = READS_INPUT and not args.without_input
    print(f"{len(rows)} recorded RLM answers (distinct task and answer), check: {other_field_value.__module__}, "
          f"{'given' if reads else 'not given'} the task's text")
    print("| evidence form | right answers flagged (false alarms) | right only leniently, flagged "
          "| wrong answers flagged (caught) |")
    print("|---|---:|---:|---:|")
    for form in FORMS:
        cells = [counts.get((form, verdict), Counter()) for verdict in ("right", "right, lenient only", "wrong")]
        if not any(cells):
            continue  # no row keeps its printed outputs (the trace form)
        print(f"| {form} | " + " | ".join(f"{c['flagged']}/{c['flagged'] + c['quiet']}" for c in cells) + " |")
    changed = counts.get(("any", "left out"), Counter())["generator changed"]
    print(f"left out: {changed} rows whose task the generators no longer make (expected answer changed)")


if __name__ == "__main__":
    main()
