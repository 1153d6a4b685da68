"""The summary printed after a run: status, reason, usage, time split, files, diff, trace, fixer.

Figures come from ``RunResult.metadata`` (usage, timings, fixer, trace_path) when the result
has it, else from what the progress :class:`~codur.ui.progress.Tally` counted in the events,
else from the result's flat attributes (llm_calls, tokens, cost_usd, duration_s).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax

from codur.ui.progress import Tally

OK_STATUSES = {"success"}
#: the agent's last words are shown up to this many characters
SAID_CHARS = 4000


def metadata(result: Any) -> dict[str, Any]:
    """``result.metadata`` as a dict ({} when the result has none)."""
    meta = getattr(result, "metadata", None)
    if meta is None:
        return {}
    if hasattr(meta, "model_dump"):
        return meta.model_dump(mode="json")
    return dict(meta)


def figures(result: Any, tally: Tally) -> dict[str, Any]:
    """The summary's numbers: model calls, tokens in/out, cost (USD), seconds per kind, fixer, trace path."""
    meta = metadata(result)
    usage, timings = meta.get("usage") or {}, meta.get("timings") or {}
    run_dir = meta.get("run_dir") or getattr(result, "run_dir", None)
    trace = meta.get("trace_path") or (str(Path(run_dir) / "trace.jsonl") if run_dir else "")
    fixer = meta.get("fixer") or tally.fixer
    if not fixer and getattr(result, "files_changed", None) and tally.writes:
        fixer = "agent"
    return {
        "model_calls": usage.get("llm_calls", tally.model_calls or getattr(result, "llm_calls", 0)),
        "input_tokens": usage.get("input_tokens", tally.input_tokens),
        "output_tokens": usage.get("output_tokens", tally.output_tokens),
        "total_tokens": usage.get("total_tokens", getattr(result, "tokens", 0)),
        "cost_usd": float(usage.get("cost_usd", getattr(result, "cost_usd", 0.0) or tally.cost_usd) or 0.0),
        "model_s": float(timings.get("model_s", usage.get("model_s", tally.model_s)) or 0.0),
        "tools_s": float(timings.get("tools_s", tally.tools_s) or 0.0),
        "tests_s": float(timings.get("tests_s", tally.tests_s) or 0.0),
        "repair_s": float(timings.get("repair_s", tally.repair_s) or 0.0),
        "total_s": float(timings.get("total_s", getattr(result, "duration_s", 0.0)) or 0.0),
        "fixer": fixer,
        "trace": trace,
    }


def print_summary(console: Console, result: Any, tally: Tally) -> None:
    """Print the run's summary on ``console`` (the diff coloured on a terminal)."""
    f = figures(result, tally)
    status = getattr(result.status, "value", str(result.status))
    colour = "green" if status in OK_STATUSES else "red"
    console.print()
    reason = escape(result.reason or "-")
    console.print(f"[bold {colour}]status: {escape(status)}[/]  reason: {reason}", highlight=False)
    said = getattr(result, "output_text", None) or getattr(result, "summary", "") or ""
    if f["fixer"] and not said.startswith("fixed by"):
        console.print(f"fixed by: {escape(f['fixer'])}", highlight=False)
    if said:  # the agent's last words: for a question, the answer (whole, up to SAID_CHARS)
        cut = f" …[{len(said) - SAID_CHARS} more characters in result.json]" if len(said) > SAID_CHARS else ""
        console.print(f"summary: {escape(said[:SAID_CHARS])}{cut}", highlight=False)
    tokens = (f"{f['input_tokens']} in / {f['output_tokens']} out" if f["input_tokens"] or f["output_tokens"]
              else str(f["total_tokens"]))
    cost = f" · cost ${f['cost_usd']:.4f}" if f["cost_usd"] else ""
    console.print(f"turns {result.turns} · model calls {f['model_calls']} · tokens {tokens}{cost}", highlight=False)
    console.print(f"time {f['total_s']:.1f}s: model {f['model_s']:.1f}s · tools {f['tools_s']:.1f}s · "
                  f"tests {f['tests_s']:.1f}s · repair {f['repair_s']:.1f}s", highlight=False)
    changed = list(getattr(result, "files_changed", []) or [])
    console.print(f"files changed: {escape(', '.join(changed)) if changed else '(none)'}", highlight=False)
    meta = metadata(result)
    for risky in meta.get("risky_patches") or []:  # flagged writes (codur.tools.risk)
        verdict = "approved" if risky.get("approved") else "not written"
        console.print(f"[red]risky change to {escape(str(risky.get('path')))} ({verdict}):[/] "
                      f"{escape('; '.join(risky.get('findings') or []))}", highlight=False)
    for change in meta.get("tests_changed") or []:  # what the repo's own tests did to it
        console.print(f"[yellow]the test suite {escape(str(change.get('change')))} "
                      f"{escape(str(change.get('path')))}[/]", highlight=False)
    print_diff(console, result.diff)
    if f["trace"]:
        console.print(f"trace: {escape(f['trace'])}", highlight=False, soft_wrap=True)


def print_diff(console: Console, diff: str) -> None:
    """A unified diff: coloured and wrapped on a terminal, as plain text, whole, when piped."""
    if not diff:
        return
    if console.is_terminal:
        console.print(Syntax(diff, "diff", theme="ansi_dark", background_color="default", word_wrap=True))
    else:
        console.file.write(diff if diff.endswith("\n") else diff + "\n")
