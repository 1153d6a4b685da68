"""A run's trace as a Rich Tree: turns → nodes → tool and model calls, one line per other event.

Reads traces with ``event_type`` and the older ``event`` key. A node's turn is the later
of its own and the next node's (delegate emits before it starts the turn), and its duration
runs to the next node (or run.end).
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.tree import Tree

from codur.core.events import state_entered
from codur.history.runs import RunInfo, event_type

#: Tool arguments left out of a call's line (file contents and edit texts).
LONG_ARGS = ("content", "new", "old", "code", "patch")
#: Event types not shown (the model's replies are shown by their tool calls and model.call lines).
QUIET = {"run.start", "run.end", "model.start", "agent.reply"}


def tool_line(event: dict) -> str:
    """``read_file(path='a.py') ok 0.01s``, as Rich markup."""
    args = event.get("args") if isinstance(event.get("args"), dict) else {}
    shown = ", ".join(f"{k}={str(v)[:40]!r}" for k, v in args.items() if k not in LONG_ARGS)
    mark = "[green]ok[/]" if event.get("ok") else "[red]error[/]"
    return f"{escape(str(event.get('tool', '?')))}({escape(shown)}) {mark} [dim]{_seconds(event.get('duration_s'))}[/]"


def model_line(event: dict) -> str:
    """``model actor qwen: 1200→80 tokens, $0.0001, 2.1s``, as Rich markup."""
    role = f" {event['role']}" if event.get("role") else ""
    cost = f", ${event['cost_usd']:.4f}" if isinstance(event.get("cost_usd"), int | float) else ""
    return (f"model{escape(role)} {escape(str(event.get('model', '')))}: {event.get('input_tokens', '?')}→"
            f"{event.get('output_tokens', '?')} tokens{cost} [dim]{_seconds(event.get('seconds'))}[/]")


def event_line(event: dict) -> str:
    """One line for any other event: its type and its short scalar fields."""
    kind = event_type(event)
    skip = {"ts", "run_id", "event", "event_type", "output", "text"}
    fields = []
    for key, value in event.items():
        if key in skip or isinstance(value, dict | list) or value is None or "\n" in str(value):
            continue  # one line: no nested values, no multi-line texts (diffs, replies)
        fields.append(f"{key}={str(value)[:60]}")
    errors = event.get("errors")
    if isinstance(errors, list) and errors:
        fields.append(f"errors={str(errors[0])[:80]}")
    colour = "yellow" if kind.startswith(("patch.", "repair.")) else "dim"
    return f"[{colour}]{escape(kind)}[/] {escape(' '.join(fields))}"


def _seconds(value: Any) -> str:
    return f"{value:.2f}s" if isinstance(value, int | float) else ""


def trace_tree(run: RunInfo, events: list[dict]) -> Tree:
    """The tree of a run: the root names the run, task and status; then one branch per turn
    (turn 0: initialize, observe, plan), one per node under it, the node's events under that."""
    colour = {"success": "green", "interrupted": "yellow"}.get(run.status, "red")
    reason = f" ({escape(run.reason[:120])})" if run.reason else ""
    reason += f" · fixed by {escape(run.fixer)}" if run.fixer and run.status == "success" else ""
    root = Tree(f"[bold]{escape(run.run_id)}[/] {escape(run.task[:100])} · [{colour}]{escape(run.status)}[/]{reason}")
    states = [i for i, e in enumerate(events) if state_entered(e)]
    end_ts = next((e.get("ts") for e in reversed(events) if event_type(e) == "run.end"), None)
    turns: dict[int, Tree] = {}
    current: Tree = root
    for n, i in enumerate(states):
        event = events[i]
        nxt = events[states[n + 1]] if n + 1 < len(states) else None
        turn = max(_int(event.get("turn")), _int(nxt.get("turn")) if nxt else 0)
        if turn not in turns:
            turns[turn] = root.add(f"[bold]turn {turn}[/]")
        stop = nxt.get("ts") if nxt else end_ts
        took = _seconds(stop - event["ts"]) if _number(stop) and _number(event.get("ts")) else ""
        state = f" ({escape(str(event.get('state', '')))})" if event.get("state") else ""
        inside = events[i + 1: states[n + 1] if nxt else len(events)]
        # the node's exit event (its outcome) lies between its entry and the next one; a run
        # killed inside the node has none
        exit_event = next((e for e in inside if event_type(e) == "engine.state"), {})
        outcome = str(exit_event.get("status", ""))
        took = took or _seconds(exit_event.get("seconds"))  # the last node of a trace with no run.end
        state += f" [red]{escape(outcome)}[/]" if outcome and outcome != "success" else ""
        current = turns[turn].add(f"[cyan]{escape(str(event.get('node', '?')))}[/]{state} [dim]{took}[/]")
        for inner in inside:
            if event_type(inner) != "engine.state":
                _add(current, inner)
    if not states:  # a run that ended (or broke) before its first node: its events under the root
        for inner in events:
            _add(root, inner)
    return root


def _add(branch: Tree, event: dict) -> None:
    kind = event_type(event)
    if kind == "tool.call":
        branch.add(tool_line(event))
    elif kind == "model.call":
        branch.add(model_line(event))
    elif kind == "agent.reply" and event.get("errors"):
        branch.add(f"[yellow]! {escape(str(event['errors'][0])[:160])}[/]")
    elif kind and kind not in QUIET:
        branch.add(event_line(event))


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
