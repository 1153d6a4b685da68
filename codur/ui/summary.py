"""The summary printed after a run: status, reason, usage, time split, files, diff, trace, fixer.

A run that did not succeed and had its edits reverted says so (``edits reverted; the attempt
is in .codur/runs/<id>/attempt.patch``) and prints the attempted diff.

Figures come from the result alone: ``RunResult.metadata`` (usage, timings, fixer,
trace_path: the run's usage ledger, codur.core.usage, with its one time split), else the result's flat
attributes (llm_calls, tokens, cost_usd, duration_s); the events are never summed again here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.cells import cell_len, chop_cells
from rich.console import Console
from rich.markup import escape
from rich.text import Text

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


def figures(result: Any) -> dict[str, Any]:
    """The summary's numbers: model calls, tokens in/out, cost (USD), seconds per kind, fixer, trace path."""
    meta = metadata(result)
    usage, timings = meta.get("usage") or {}, meta.get("timings") or {}
    run_dir = meta.get("run_dir") or getattr(result, "run_dir", None)
    trace = meta.get("trace_path") or (str(Path(run_dir) / "trace.jsonl") if run_dir else "")
    return {
        "model_calls": usage.get("llm_calls", getattr(result, "llm_calls", 0)),
        "input_tokens": usage.get("input_tokens", 0),
        "output_tokens": usage.get("output_tokens", 0),
        "total_tokens": usage.get("total_tokens", getattr(result, "tokens", 0)),
        "cost_usd": float(usage.get("cost_usd", getattr(result, "cost_usd", 0.0)) or 0.0),
        "model_s": float(timings.get("model_s", usage.get("model_s", 0.0)) or 0.0),
        "tools_s": float(timings.get("tools_s", 0.0) or 0.0),
        "tests_s": float(timings.get("tests_s", 0.0) or 0.0),
        "repair_s": float(timings.get("repair_s", 0.0) or 0.0),
        "total_s": float(timings.get("total_s", getattr(result, "duration_s", 0.0)) or 0.0),
        "fixer": meta.get("fixer") or "",
        "trace": trace,
    }


def usd(amount: float) -> str:
    """``$0.0123``; six decimals below a cent, so a small run's cost does not read as zero."""
    return f"${amount:.4f}" if amount >= 0.01 or amount == 0 else f"${amount:.6f}"


def print_summary(console: Console, result: Any, repo: Path | None = None) -> None:
    """Print the run's summary on ``console`` (the diff coloured on a terminal); a cancelled run's
    ends with the command that resumes it (``--repo`` named when ``repo`` is given)."""
    f = figures(result)
    status = getattr(result.status, "value", str(result.status))
    colour = "green" if status in OK_STATUSES else "red"
    console.print()
    reason = escape(result.reason or "-")
    console.print(f"[bold {colour}]status: {escape(status)}[/]  reason: {reason}", highlight=False)
    stop = getattr(getattr(result, "metadata", None), "stop", None) or {}
    if "max_cost_usd" in stop:
        console.print(f"spent {usd(stop['cost_usd'])} of the {usd(stop['max_cost_usd'])} limit (--max-cost)",
                      highlight=False)
    said = getattr(result, "output_text", None) or getattr(result, "summary", "") or ""
    if f["fixer"] and not said.startswith("fixed by"):
        console.print(f"fixed by: {escape(f['fixer'])}", highlight=False)
    if said:  # the agent's last words: for a question, the answer (whole, up to SAID_CHARS)
        cut = f" …[{len(said) - SAID_CHARS} more characters in result.json]" if len(said) > SAID_CHARS else ""
        console.print(f"summary: {escape(said[:SAID_CHARS])}{cut}", highlight=False)
    tokens = (f"{f['input_tokens']} in / {f['output_tokens']} out" if f["input_tokens"] or f["output_tokens"]
              else str(f["total_tokens"]))
    cost = f" · cost {usd(f['cost_usd'])}" if f["cost_usd"] else ""
    console.print(f"turns {result.turns} · model calls {f['model_calls']} · tokens {tokens}{cost}", highlight=False)
    console.print(f"time {f['total_s']:.1f}s: model {f['model_s']:.1f}s · tools {f['tools_s']:.1f}s · "
                  f"tests {f['tests_s']:.1f}s · repair {f['repair_s']:.1f}s", highlight=False)
    changed = list(getattr(result, "files_changed", []) or [])
    meta = metadata(result)
    if meta.get("reverted"):
        console.print(f"files attempted: {escape(', '.join(changed))}", highlight=False)
        console.print(f"edits reverted; the attempt is in {escape(_shown(meta.get('attempt_path') or ''))}",
                      highlight=False, soft_wrap=True)
    else:
        console.print(f"files changed: {escape(', '.join(changed)) if changed else '(none)'}", highlight=False)
    for risky in meta.get("risky_patches") or []:  # flagged writes (codur.tools.risk)
        verdict = "approved" if risky.get("approved") else "not written"
        console.print(f"[red]risky change to {escape(str(risky.get('path')))} ({verdict}):[/] "
                      f"{escape('; '.join(risky.get('findings') or []))}", highlight=False)
    for change in meta.get("tests_changed") or []:  # what the repo's own tests did to it
        console.print(f"[yellow]the test suite {escape(str(change.get('change')))} "
                      f"{escape(str(change.get('path')))}[/]", highlight=False)
    print_diff(console, result.diff)
    if f["trace"] and Path(f["trace"]).is_file():  # a run that never started (a locked repo) wrote none
        console.print(f"trace: {escape(f['trace'])}", highlight=False, soft_wrap=True)
    if status == "cancelled" and getattr(result, "run_id", ""):
        where = f" --repo {repo}" if repo is not None else ""
        console.print(f"resume: codur --resume {escape(result.run_id)}{escape(where)}", highlight=False,
                      soft_wrap=True)


def _shown(path: str) -> str:
    """A path in a run's folder as ``.codur/runs/<id>/<name>`` (relative to its repo); else as given."""
    parts = Path(path).parts
    return Path(*parts[-4:]).as_posix() if len(parts) >= 4 and parts[-4:-2] == (".codur", "runs") else path


#: Marks a diff line's continuation on a narrow terminal: no diff line starts with it, so a
#: folded line never reads as a context, added or removed line of its own.
CONTINUATION = "↪ "
_DIFF_STYLES = (("+++", "bold"), ("---", "bold"), ("+", "green"), ("-", "red"), ("@@", "cyan"))


def diff_rows(diff: str, width: int) -> list[Text]:
    """The rows a unified diff takes on a terminal ``width`` cells wide: each line coloured by its
    kind, and a line longer than the width folded into rows that start with :data:`CONTINUATION`."""
    rows: list[Text] = []
    room = max(width - len(CONTINUATION), 8)
    for line in diff.splitlines():
        style = next((style for prefix, style in _DIFF_STYLES if line.startswith(prefix)), "")
        text = line.expandtabs(8)
        if cell_len(text) <= width:
            rows.append(Text(text, style=style))
            continue
        first, *rest = chop_cells(text, width)
        rows.append(Text(first, style=style))
        for piece in chop_cells("".join(rest), room) if rest else []:
            rows.append(Text.assemble((CONTINUATION, "dim"), (piece, style)))
    return rows


def print_diff(console: Console, diff: str) -> None:
    """A unified diff: coloured on a terminal, long lines folded with a continuation marker (never
    into rows that look like diff lines); as plain text, whole, when piped."""
    if not diff:
        return
    if console.is_terminal:
        for row in diff_rows(diff, console.width):
            console.print(row, no_wrap=True, overflow="ignore", crop=False, highlight=False)
    else:
        console.file.write(diff if diff.endswith("\n") else diff + "\n")
