"""RLM bench: the engine's own overhead, and needle-in-a-haystack accuracy with the configured model.

Accuracy on our own task kinds (lookup, count, join, not present) beside the bare model: accuracy.py.

    .venv/bin/python bench/rlm/run.py                      # overhead + NIAH at 100k,1m,10m, 1 trial each
    .venv/bin/python bench/rlm/run.py --sizes 100k --trials 3
    .venv/bin/python bench/rlm/run.py --no-niah            # overhead only (no model)

Overhead figures use no model (a stub bridge, or the scripted model with instant
replies), so they are the engine's own cost: sandbox start, per-block execution
round trip, per-call bridge latency, per-iteration loop cost. NIAH runs the model
from CodurConfig (the embedded local model by default) and prints what actually ran.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from niah import QUESTION, make_haystack, parse_size

from codur.llm import ScriptedChatModel
from codur.rlm import RLMConfig, RLMEngine, Sandbox
from codur.rlm.bridge import Bridge, ModelClient
from codur.rlm.budget import Budget, BudgetLimits
from codur.rlm.trace import RLMTrace


def _stats_ms(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"mean {statistics.mean(ms):.3f} ms · p50 {statistics.median(ms):.3f} ms · p95 {p95:.3f} ms (n={len(ms)})"


def overhead(blocks: int, calls: int) -> dict:
    """Engine overhead without any model."""
    results = {}
    big, _ = make_haystack(10_000_000, seed=0)
    starts = []
    for _ in range(3):
        t0 = time.perf_counter()
        sandbox = Sandbox(big).start()
        starts.append(time.perf_counter() - t0)
        sandbox.close()
    results["sandbox start, 10 MB context"] = _stats_ms(starts)

    with Sandbox(big, bridge=lambda name, args: "ok") as sandbox:
        round_trips, in_worker = [], []
        for _ in range(blocks):
            t0 = time.perf_counter()
            ex = sandbox.execute("x = 1")
            round_trips.append(time.perf_counter() - t0)
            in_worker.append(ex.duration_s)
        results["block execution, round trip"] = _stats_ms(round_trips)
        results["block execution, exec inside the worker"] = _stats_ms(in_worker)
        t0 = time.perf_counter()
        sandbox.execute(f"for _ in range({calls}):\n    llm_query('hi')")
        per_call_us = (time.perf_counter() - t0) / calls * 1e6
        results["bridge call, stub answer (pipe round trip)"] = f"{per_call_us:.1f} µs/call (n={calls})"
        t0 = time.perf_counter()
        sandbox.execute("n = len(search_context('secret code'))")
        results["search_context over 10 MB"] = f"{(time.perf_counter() - t0) * 1000:.1f} ms"

    model = ScriptedChatModel(replies=["ok"] * calls)
    bridge = Bridge(client=ModelClient(model, "scripted"), budget=Budget(BudgetLimits(max_tokens=None)),
                    trace=RLMTrace(task="bench"), spawn=lambda *a: None)
    with Sandbox("", bridge=bridge) as sandbox:
        t0 = time.perf_counter()
        sandbox.execute(f"for _ in range({calls}):\n    llm_query('hi')")
        results["bridge call, llm_query via Bridge + scripted model"] = (
            f"{(time.perf_counter() - t0) / calls * 1000:.3f} ms/call (n={calls})")

    iterations = 20
    replies = ["```repl\nprint(len(context))\n```"] * (iterations - 1) + ["FINAL(done)"]
    context, _ = make_haystack(1_000_000, seed=0)
    t0 = time.perf_counter()
    result = RLMEngine(ScriptedChatModel(replies=replies), RLMConfig(max_iterations=iterations)).run("q", context)
    elapsed = time.perf_counter() - t0
    model_s = result.trace.usage.model_s
    results["engine loop, 1 MB context, scripted model"] = (
        f"{elapsed / iterations * 1000:.1f} ms/iteration incl. sandbox start "
        f"({(elapsed - model_s) / iterations * 1000:.1f} ms without model time), n={iterations}")
    return results


def niah(sizes: list[int], trials: int, max_iterations: int, max_tokens: int) -> list[dict]:
    """Needle-in-a-haystack accuracy per size with the configured model."""
    from accuracy import configured_model

    from codur.llm.local import stop_shared_server

    model = configured_model(max_tokens)
    rows = []
    try:
        for size in sizes:
            for trial in range(trials):
                haystack, code = make_haystack(size, seed=1000 + trial)
                rlm = RLMConfig(max_iterations=max_iterations, max_depth=0, max_wall_s=600, sub_call_chars=4000)
                t0 = time.perf_counter()
                result = RLMEngine(model, rlm).run(QUESTION, haystack)
                trace = result.trace
                row = {"size": size, "trial": trial, "needle": code, "answer": result.answer,
                       "correct": bool(result.answer and code in result.answer),
                       "source": result.answer_source, "iterations": len(trace.iterations),
                       "blocks": sum(len(i.executions) for i in trace.iterations),
                       "calls": trace.usage.calls, "tokens": trace.usage.total_tokens,
                       "model_s": round(trace.usage.model_s, 1), "seconds": round(time.perf_counter() - t0, 1)}
                rows.append(row)
                print(f"  {json.dumps(row)}", flush=True)
    finally:
        stop_shared_server()
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100k,1m,10m", help="haystack sizes in characters, e.g. 100k,1m,10m")
    parser.add_argument("--trials", type=int, default=1, help="NIAH trials per size (different needles)")
    parser.add_argument("--max-iterations", type=int, default=4, help="RLM iterations per NIAH run")
    parser.add_argument("--max-tokens", type=int, default=256, help="completion cap per model call, tokens")
    parser.add_argument("--blocks", type=int, default=300, help="blocks timed for execution latency")
    parser.add_argument("--calls", type=int, default=300, help="bridge calls timed")
    parser.add_argument("--no-niah", action="store_true", help="overhead only; no model")
    parser.add_argument("--no-overhead", action="store_true", help="NIAH only")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)

    report: dict = {"argv": sys.argv[1:]}
    if not args.no_overhead:
        print("RLM engine overhead (no model)")
        report["overhead"] = overhead(args.blocks, args.calls)
        for name, value in report["overhead"].items():
            print(f"  {name:<52} {value}")
    if not args.no_niah:
        sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
        print(f"NIAH with the configured model: sizes {sizes}, {args.trials} trial(s) each, "
              f"max {args.max_iterations} iterations, {args.max_tokens}-token replies")
        rows = niah(sizes, args.trials, args.max_iterations, args.max_tokens)
        report["niah"] = rows
        print(f"  {'size (chars)':>12}  {'accuracy':>9}  {'mean s':>7}  {'iterations':>10}  {'calls':>5}  sources")
        for size in sizes:
            mine = [r for r in rows if r["size"] == size]
            correct = sum(r["correct"] for r in mine)
            print(f"  {size:>12,}  {correct}/{len(mine):<7}  {statistics.mean(r['seconds'] for r in mine):>7.1f}  "
                  f"{statistics.mean(r['iterations'] for r in mine):>10.1f}  "
                  f"{statistics.mean(r['calls'] for r in mine):>5.1f}  "
                  f"{','.join(sorted({r['source'] for r in mine}))}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
