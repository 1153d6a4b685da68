"""Trust benchmark: does codur's end say what happened? Over bench/trust/tasks.py's tasks.

Each task runs on a fresh git repo of its own (the files committed, then the user's
uncommitted work written), through :func:`codur.run`, with the scripted model (each task's
replies per role, and its config) or the embedded model (the defaults). After the run a
hidden check says whether the task is *done*: a pytest file run in the repo, or words the
answer must hold. A resume task runs twice: a first start cancelled as a node starts (as a
Ctrl-C there), then the resumed run, whose end is judged. The table gives, per task, the end
expected of a trustworthy run (scripted),
the actual end, whether the task is done, and a **false success**: the run said
``success / verified`` (or ``answered``) and the task is not done. ``success / unverified``
that is not done is counted apart: codur said it could not prove it.

    .venv/bin/python bench/trust/run.py                       # scripted model, every task
    flock /tmp/codur-heavy.lock .venv/bin/python bench/trust/run.py --model embedded --timeout 120
    .venv/bin/python bench/trust/run.py --tasks c01,f0 --out results.jsonl

Exit code: 0 when there is no false success (and, scripted, every end is the expected one), else 1.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tasks import REPOS, TASKS, Task  # noqa: E402

from codur import CodurConfig, RunRequest, RunResult, run  # noqa: E402
from codur.llm import ScriptedChatModel, StaticModelProvider  # noqa: E402

CHECK_FILE = "test_zz_hidden_check.py"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=bench@example.com", "-c", "user.name=bench", *args],
                   check=True, capture_output=True)


def make_repo(task: Task, root: Path) -> Path:
    """The task's repo under ``root``: its files committed, then the user's uncommitted work."""
    repo = root / task.repo
    repo.mkdir()
    for rel, text in REPOS[task.repo].items():
        (repo / rel).write_text(text)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "start")
    for rel, text in task.working.items():
        (repo / rel).write_text(text)
    return repo


def done(task: Task, repo: Path, answer: str) -> bool:
    """The hidden check: the answer holds the words, or the check's tests pass in the repo."""
    if task.answer_has:
        return all(w in answer for w in task.answer_has)
    (repo / CHECK_FILE).write_text(task.check)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", CHECK_FILE], cwd=repo,
                          capture_output=True, text=True, timeout=120)
    return proc.returncode == 0


def scripted(task: Task, actor: tuple[str, ...]) -> StaticModelProvider:
    roles = {"actor": actor, "planner": task.planner, "critic": task.critic}
    return StaticModelProvider({role: ScriptedChatModel(replies=list(replies)) for role, replies in roles.items()})


def start(task: Task, repo: Path, model: str, timeout: float, *, actor: tuple[str, ...] = (),
          cancel_at: str = "", resume: str | None = None) -> RunResult:
    """One codur run of ``task`` on ``repo``: cancelled as the node ``cancel_at`` starts (as a
    Ctrl-C at that moment), or resuming the run ``resume``; ``actor``: the scripted actor's replies."""
    cancel = threading.Event()

    def on_event(event: dict) -> None:
        if cancel_at and (event.get("event_type"), event.get("node"), event.get("phase")) == (
                "engine.state", cancel_at, "enter"):
            cancel.set()

    request = RunRequest(task=task.task, repo=repo, cancel_event=cancel, run_id=resume, resume=resume is not None,
                         timeout_s=None if model == "scripted" else timeout)
    if model == "scripted":
        config = CodurConfig(repair_workers=1, timeout_s=timeout, **task.config)
        return run(request, models=scripted(task, actor), config=config, on_event=on_event)
    return run(request, config=CodurConfig(repair_workers=1), on_event=on_event)


def run_task(task: Task, model: str, timeout: float) -> dict:
    """One task's line: expected and actual end, done, false success, seconds, model calls. A task
    with ``cancel_at`` runs twice: a first start cancelled there, then ``--resume`` of it (its
    ``resumed`` replies); the resumed run's end is the task's (the first start's, when it ended
    before that node: the embedded model may)."""
    with tempfile.TemporaryDirectory(prefix=f"trust_{task.id}_") as tmp:
        repo = make_repo(task, Path(tmp))
        started = time.monotonic()
        calls = 0
        if task.cancel_at:
            first = start(task, repo, model, timeout, actor=task.actor, cancel_at=task.cancel_at)
            calls = first.llm_calls
            result = first if first.status.value != "cancelled" else start(  # it never got there: its own end
                task, repo, model, timeout, actor=task.resumed, resume=first.run_id)
        else:
            result = start(task, repo, model, timeout, actor=task.actor)
        seconds = time.monotonic() - started
        end = f"{result.status.value}/{result.reason}"
        ok = done(task, repo, result.output_text)
    claimed = result.status.value == "success" and result.reason in ("verified", "answered")
    return {"task": task.id, "kind": task.kind, "model": model, "expected": " or ".join(task.expect), "actual": end,
            "as_expected": end in task.expect, "done": ok, "false_success": claimed and not ok,
            "unverified_not_done": result.reason == "unverified" and not ok, "seconds": round(seconds, 1),
            "llm_calls": calls + result.llm_calls}


def table(lines: list[dict]) -> str:
    """The markdown table of ``lines`` and its totals."""
    out = ["| task | kind | expected (scripted) | actual | done | false success | s | model calls |",
           "|---|---|---|---|---|---|---|---|"]
    for r in lines:
        out.append(f"| {r['task']} | {r['kind']} | {r['expected']} | {r['actual']} | {'yes' if r['done'] else 'no'} | "
                   f"{'**YES**' if r['false_success'] else 'no'} | {r['seconds']:.1f} | {r['llm_calls']} |")
    false = sum(r["false_success"] for r in lines)
    expected = sum(r["as_expected"] for r in lines)
    unproven = sum(r["unverified_not_done"] for r in lines)
    fixes = [r["seconds"] for r in lines if r["kind"] == "plain_fix" and r["done"]]
    out.append("")
    out.append(f"{len(lines)} tasks: **{false} false successes**; {expected} ends as expected; "
               f"{sum(r['done'] for r in lines)} done; {unproven} success/unverified not done; "
               f"plain fixes done {len(fixes)}/{sum(r['kind'] == 'plain_fix' for r in lines)}"
               + (f", {min(fixes):.1f}-{max(fixes):.1f} s" if fixes else ""))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["scripted", "embedded"], default="scripted")
    parser.add_argument("--tasks", default="", help="comma-separated id prefixes (default: every task)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    parser.add_argument("--out", type=Path, help="append one JSON line per task here")
    args = parser.parse_args(argv)
    prefixes = [p for p in args.tasks.split(",") if p]
    chosen = [t for t in TASKS if not prefixes or any(t.id.startswith(p) for p in prefixes)]
    lines = []
    for task in chosen:
        line = run_task(task, args.model, args.timeout)
        lines.append(line)
        print(f"{'✗' if line['false_success'] else '✓'} {line['task']:<20} {line['actual']:<40} "
              f"done={line['done']} {line['seconds']:.1f}s", flush=True)
        if args.out:
            with args.out.open("a") as f:
                f.write(json.dumps(line) + "\n")
    print()
    print(table(lines))
    bad = any(r["false_success"] for r in lines) or (args.model == "scripted" and not all(r["as_expected"]
                                                                                            for r in lines))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
