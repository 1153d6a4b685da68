"""RLM accuracy bench (issue 26, item 5): our own long-log tasks, the RLM beside the bare model.

    .venv/bin/python bench/rlm/accuracy.py                         # 4 kinds x 50k,400k,2m x 5 seeds, + baseline
    .venv/bin/python bench/rlm/accuracy.py --kinds lookup --sizes 50k --seeds 1 --no-baseline
    .venv/bin/python bench/rlm/accuracy.py --smoke                 # one 50k lookup, RLM only, replies printed
    .venv/bin/python bench/rlm/accuracy.py --json out.json         # also every row and the table as JSON
    .venv/bin/python bench/rlm/accuracy.py --check-answers         # each FINAL checked against the outputs
    .venv/bin/python bench/rlm/accuracy.py --vote 3                # 3 trajectories per task and a vote
    .venv/bin/python bench/rlm/accuracy.py --family tickets        # the ticket log (ticket_tasks.py)
    .venv/bin/python bench/rlm/accuracy.py --family ledger         # the held-out ledger (ledger_tasks.py, 5 kinds)
    .venv/bin/python bench/rlm/accuracy.py --family parcels        # the held-out CSV export (parcel_tasks.py, 6 kinds)
    .venv/bin/python bench/rlm/accuracy.py --family builds         # the newest held-out one: JSON (build_tasks.py)

Tasks come from ``log_tasks.py`` (lookup among look-alike lines, counting over every line, a join of
two facts far apart, a "not present" question), or, with ``--family tickets``, from
``ticket_tasks.py`` (the same kinds over a support desk's ticket log, written after the engine's
checks), or, with ``--family ledger``, from ``ledger_tasks.py`` (JSON-lines payment records, five
kinds with an aggregate over categories; committed before issue 40's engine changes and kept out of
their tuning: the held-out family). For each task the RLM engine runs with the
configured model (CodurConfig: the embedded 1.5B model by default), and, as the baseline, the same
model answers once from the first ``--baseline-chars`` characters of the log (the bare model on a
truncated input). Prints accuracy per kind and size for both, the median wall time (seconds) and
the median tokens (prompt + completion) per task; each finished row is printed as JSON as it ends.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import build_tasks
import ledger_tasks
import log_tasks
import parcel_tasks
import ticket_tasks
from log_tasks import Task, score
from niah import parse_size

from codur.rlm import RLMConfig, RLMEngine
from codur.rlm.finals import found
from codur.rlm.prompts import direct_answer_prompt

#: characters of each block's printed output a row keeps (``printed``: what the answer checks read, for
#: replaying them later, ``field_replay.py``)
PRINTED_CHARS = 4_000
FAMILIES = {"logs": log_tasks, "tickets": ticket_tasks, "ledger": ledger_tasks, "parcels": parcel_tasks,
            "builds": build_tasks}


def configured_model(max_tokens: int) -> Any:
    """The actor model of CodurConfig (the embedded model unless an endpoint is configured),
    its replies capped at ``max_tokens`` tokens, each call bounded by ``model_timeout_s`` (seconds).

    Raises:
        codur.llm.local.LocalModelUnavailable: the embedded model cannot start.
    """
    from codur.config import CodurConfig
    from codur.llm import get_chat_model

    config = CodurConfig()
    profile = config.profiles_for("actor")[0].model_copy(update={"max_tokens": max_tokens})
    return get_chat_model(profile, config.local, model_timeout_s=config.model_timeout_s)


def run_rlm(model: Any, task: Task, config: RLMConfig, *, show: bool = False, vote: int = 1) -> dict:
    """One RLM run on ``task`` (``vote`` > 1: that many trajectories and a vote, :meth:`RLMEngine.run_voted`):
    its row (answer, correct, source, iterations, tokens, seconds, and ``printed``: each block's output
    and the input lines its searches found, up to ``PRINTED_CHARS`` a block). ``show`` prints every reply,
    output, note and extraction of the run."""
    t0 = time.perf_counter()
    engine = RLMEngine(model, config)
    result = engine.run_voted(task.question, task.context, k=vote) if vote > 1 else \
        engine.run(task.question, task.context)
    trace = result.trace
    if show:
        print(f"--- {task.id}: {task.question}\nexpected {task.answer!r}")
        for it in trace.iterations:
            print(f"--- iteration {it.index}\n{it.response}")
            for ex in it.executions:
                print(f"  [stdout] {ex.stdout[:500]!r} [error] {ex.error and ex.error.splitlines()[-1]} "
                      f"[notes] {ex.notes}")
            print(f"  [final] {it.final} [notes] {it.notes} [extraction] {it.extraction}")
    return {"task": task.id, "kind": task.kind, "size": task.size, "seed": task.seed, "method": "rlm",
            "expected": task.answer, "answer": result.answer, "correct": score(task, result.answer),
            "strict": score(task, result.answer, strict=True),
            "source": result.answer_source, "iterations": len(trace.iterations), "calls": engine.measured.calls,
            "tokens": engine.measured.total_tokens, "seconds": round(time.perf_counter() - t0, 1),
            "error": trace.error, "votes": list(result.votes),
            "printed": [found(e)[:PRINTED_CHARS] for it in trace.iterations for e in it.executions]}


def run_baseline(model: Any, task: Task, chars: int) -> dict:
    """The bare model answering ``task`` from the first ``chars`` characters of its log, in one call."""
    from langchain_core.messages import HumanMessage

    t0 = time.perf_counter()
    answer, tokens, error = None, 0, None
    try:
        reply = model.invoke([HumanMessage(direct_answer_prompt(task.question, task.context[:chars]))])
        answer = reply.content if isinstance(reply.content, str) else str(reply.content)
        tokens = int((getattr(reply, "usage_metadata", None) or {}).get("total_tokens") or 0)
    except Exception as exc:  # noqa: BLE001 - a failed call is a wrong answer with its reason
        error = f"{type(exc).__name__}: {exc}"
    return {"task": task.id, "kind": task.kind, "size": task.size, "seed": task.seed, "method": "baseline",
            "expected": task.answer, "answer": answer, "correct": score(task, answer),
            "strict": score(task, answer, strict=True), "source": "bare",
            "iterations": 0, "calls": 1, "tokens": tokens, "seconds": round(time.perf_counter() - t0, 1),
            "error": error}


def run_all(model: Any, tasks: Iterable[Task], *, config: RLMConfig, baseline_chars: int | None,
            report: Callable[[dict], None] = lambda row: None, show: bool = False, vote: int = 1,
            rlm: bool = True) -> list[dict]:
    """The RLM (unless ``rlm`` is False) and, unless ``baseline_chars`` is None, the baseline on every
    task; ``report`` sees each row."""
    rows = []
    for task in tasks:
        runs = [lambda t=task: run_rlm(model, t, config, show=show, vote=vote)] if rlm else []
        if baseline_chars is not None:
            runs.append(lambda t=task: run_baseline(model, t, baseline_chars))
        for run in runs:
            row = run()
            rows.append(row)
            report(row)
    return rows


def summary(rows: list[dict]) -> list[dict]:
    """Per (kind, size, method): right answers, runs, accuracy (0-1), median seconds and tokens."""
    groups: dict[tuple[str, int, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["kind"], row["size"], row["method"]), []).append(row)
    order = {kind: i for i, kind in enumerate(("lookup", "count", "sum", "join", "absent", "aggregate"))}
    table = []
    for (kind, size, method), mine in sorted(groups.items(), key=lambda g: (order.get(g[0][0], 99), g[0][1], g[0][2])):
        right = sum(r["correct"] for r in mine)
        strict = sum(bool(r.get("strict")) for r in mine)
        table.append({"kind": kind, "size": size, "method": method, "right": right, "strict": strict, "runs": len(mine),
                      "accuracy": right / len(mine), "median_s": statistics.median(r["seconds"] for r in mine),
                      "median_tokens": statistics.median(r["tokens"] for r in mine),
                      "sources": sorted({r["source"] for r in mine})})
    return table


def render(table: list[dict]) -> str:
    """The summary as a Markdown table: one line per kind and size, the RLM beside the baseline."""
    lines = ["| kind | size (chars) | RLM right strict · lenient | RLM median s | RLM median tokens "
             "| baseline right strict · lenient | baseline median s | baseline median tokens |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    cells: dict[tuple[str, int], dict[str, dict]] = {}
    for entry in table:
        cells.setdefault((entry["kind"], entry["size"]), {})[entry["method"]] = entry

    def cols(entry: dict | None) -> str:
        if entry is None:
            return "– | – | –"
        return (f"{entry['strict']}/{entry['runs']} · {entry['right']}/{entry['runs']} | {entry['median_s']:.1f} | "
                f"{entry['median_tokens']:,.0f}")

    for (kind, size), methods in cells.items():
        lines.append(f"| {kind} | {size:,} | {cols(methods.get('rlm'))} | {cols(methods.get('baseline'))} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--family", choices=tuple(FAMILIES), default="logs",
                        help="the task generator: logs (log_tasks.py), tickets (ticket_tasks.py), ledger "
                             "(ledger_tasks.py, the held-out family of issue 40) or parcels (parcel_tasks.py, "
                             "the held-out family of issue 54) or builds (build_tasks.py, issue 54's newest "
                             "held-out family, frozen before the measurement of record)")
    parser.add_argument("--kinds", default=None,
                        help=f"task kinds, of {', '.join(ledger_tasks.KINDS)} (aggregate: ledger and tickets); "
                             "default: every kind of the family")
    parser.add_argument("--sizes", default="50k,400k,2m", help="log sizes in characters, e.g. 50k,400k,2m")
    parser.add_argument("--seeds", type=int, default=5, help="tasks per kind and size (seeds 0..n-1)")
    parser.add_argument("--max-iterations", type=int, default=6, help="RLM iterations per task")
    parser.add_argument("--max-tokens", type=int, default=384, help="completion cap per model call, tokens")
    parser.add_argument("--max-wall", type=float, default=600.0, help="RLM wall-clock limit per task, seconds")
    parser.add_argument("--baseline-chars", type=int, default=12_000,
                        help="characters of the log the bare model sees (the head)")
    parser.add_argument("--no-baseline", action="store_true", help="RLM only")
    parser.add_argument("--baseline-only", action="store_true", help="the baseline only, no RLM run")
    parser.add_argument("--first-seed", type=int, default=0, help="the first seed (seeds first..first+n-1)")
    parser.add_argument("--check-answers", action="store_true",
                        help="RLMConfig.check_answers: one model call checks each FINAL against the outputs")
    parser.add_argument("--vote", type=int, default=1, metavar="K",
                        help="K trajectories at temperatures 0, 0.7, 1.0 and a majority vote (self-consistency)")
    parser.add_argument("--smoke", action="store_true", help="one 50k lookup (seed 0), RLM only, replies printed")
    parser.add_argument("--show", action="store_true", help="print every reply, output and note of the RLM runs")
    parser.add_argument("--json", type=Path, help="also write every row and the summary to this file")
    args = parser.parse_args(argv)

    if args.smoke:
        kinds, sizes, seeds, baseline = ["lookup"], [50_000], 1, None
    else:
        kinds = [k.strip() for k in (args.kinds or ",".join(FAMILIES[args.family].KINDS)).split(",") if k.strip()]
        sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
        seeds, baseline = args.seeds, None if args.no_baseline else args.baseline_chars
    config = RLMConfig(max_iterations=args.max_iterations, max_depth=0, max_wall_s=args.max_wall,
                       sub_call_chars=4000, check_answers=args.check_answers)
    seed_range = range(args.first_seed, args.first_seed + seeds)
    make_task = FAMILIES[args.family].make_task
    tasks = (make_task(kind, size, seed) for kind in kinds for size in sizes for seed in seed_range)
    print(f"RLM accuracy: {args.family} family, kinds {kinds}, sizes {sizes}, {seeds} seed(s), "
          f"max {args.max_iterations} iterations, "
          f"{args.max_tokens}-token replies, answer check {'on' if args.check_answers else 'off'}, "
          f"{args.vote} trajectory(ies) per task; baseline: "
          f"{'none' if baseline is None else f'the bare model on the first {baseline:,} characters'}", flush=True)

    from codur.llm.local import stop_shared_server

    model = configured_model(args.max_tokens)
    try:
        rows = run_all(model, tasks, config=config, baseline_chars=baseline,
                       report=lambda row: print(f"  {json.dumps(row)}", flush=True),
                       show=args.smoke or args.show, vote=args.vote, rlm=not args.baseline_only)
    finally:
        stop_shared_server()
    table = summary(rows)
    print(render(table))
    if args.json:
        args.json.write_text(json.dumps({"argv": sys.argv[1:], "rows": rows, "summary": table}, indent=2))


if __name__ == "__main__":
    main()
