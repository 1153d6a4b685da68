"""Solve-rate benchmark: codur (and the bare model) over the task repos in bench/agent/tasks.

Each (task, mode) runs on a fresh copy of the task folder without task.toml and
solution/. Modes, in this order:
  bare      the model alone: one chat call holding the task and every .py file; the files
            of its reply (`path` line + ```python block) are written, the answer is judged
  loop      codur with fixers=["agent"]     (the tool-loop agent alone)
  sampling  codur with fixers=["sampling"]
  mutation  codur with fixers=["mutation"]
  default   codur with the settings' defaults
bare runs here, one pair after the other. The codur modes run as one codur batch
(codur.batch.runner.run_batch, what `codur batch` runs): each pair is a batch task with id
`task:mode`, a codur process of its own on its own working copy, --workers at a time.
Solved: bug/feature/fixture tasks -> the task's original test files are copied back over
the copy, then `pytest` exits 0 within 60 s; question tasks -> the answer (codur: the
summary; bare: the reply) contains every keyword, case-insensitive.

Usage:
  .venv/bin/python bench/agent/run.py [--modes bare,mutation] [--tasks a_01,b_1]
      [--timeout 600] [--workers 1] [--out results.jsonl] [--resume] [--base-url URL --model NAME]
  .venv/bin/python bench/agent/run.py --table results.jsonl     # only print the table
--out gets one JSON line per (task, mode), appended as each finishes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from codur.batch.runner import BatchSettings, run_batch
from codur.batch.tasks import BatchTask

TASKS_DIR = Path(__file__).resolve().parent / "tasks"
MAIN_MODES = ["bare", "loop", "sampling", "mutation", "default"]
#: sampling with another edit format than the whole function (codur.patch.formats)
FORMAT_MODES = {"sampling_sr": "search_replace", "sampling_udiff": "udiff"}
MODES = ["bare", "loop", "sampling", *FORMAT_MODES, "mutation", "default"]
FIXERS = {"loop": ["agent"], "sampling": ["sampling"], "sampling_sr": ["sampling"], "sampling_udiff": ["sampling"],
          "mutation": ["mutation"]}
IGNORE = shutil.ignore_patterns("task.toml", "solution", "__pycache__", ".pytest_cache")
PYTEST_TIMEOUT = 60
BARE_MAX_TOKENS = 1500


def is_test(path: str) -> bool:
    name = Path(path).name
    return name.startswith("test_") and name.endswith(".py") or name.endswith("_test.py")


def test_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*.py") if is_test(p.name) and "solution" not in p.relative_to(root).parts
            and "__pycache__" not in p.parts]


def judge(task: Path, meta: dict, work: Path, answer: str) -> bool:
    if meta["kind"] == "question":
        return all(k.lower() in answer.lower() for k in meta["keywords"])
    for src in test_files(task):  # edits to the tests don't count
        dest = work / src.relative_to(task)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=work,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    try:
        return proc.wait(timeout=PYTEST_TIMEOUT) == 0
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return False


# ---------------------------------------------------------------- bare: one chat call

def bare_prompt(task: str, kind: str, work: Path) -> str:
    files = sorted(p.relative_to(work).as_posix() for p in work.rglob("*.py") if "__pycache__" not in p.parts)
    parts = [f"You are given a Python repository and a task.\n\nTask: {task}\n\nThe repository's files:\n"]
    parts += [f"{f}\n```python\n{(work / f).read_text()}\n```\n" for f in files]
    if kind == "question":
        parts.append(f"Answer the question from the code above.\n\nQuestion: {task}")
    else:
        parts.append(f"Do the task: {task}\nReply with the full new content of every file you change: for each "
                     "file, its path on a line by itself, then the whole file in a ```python fenced block. "
                     "Do not change the tests.")
    return "\n".join(parts)


def _name_in(line: str, files: set[str]) -> str | None:
    """The repo .py path a line mentions (full path, or a unique base name), or a new path when the
    line is nothing but that path."""
    for tok in re.findall(r"[\w./-]+\.py\b", line):
        tok = tok.removeprefix("./")
        if tok in files:
            return tok
        hits = [f for f in files if f.endswith("/" + tok)]
        if len(hits) == 1:
            return hits[0]
    m = re.fullmatch(r"[*`#:\s]*([\w./-]+\.py)[*`:\s]*", line)
    return m.group(1).removeprefix("./") if m else None


def parse_reply(reply: str, files: set[str]) -> dict[str, str]:
    """{path: content} for each closed fenced block; the path is a `# path` first line inside the
    block, else the closest preceding line (since the previous block) that names a .py file."""
    lines, out, i, last_end = reply.splitlines(), {}, 0, 0
    while i < len(lines):
        if not lines[i].strip().startswith("```"):
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith("```"):
            j += 1
        if j == len(lines):  # unclosed (truncated) block
            break
        body, name = lines[i + 1:j], None
        if body and (m := re.fullmatch(r"#\s*([\w./-]+\.py)", body[0].strip())):
            name = m.group(1).removeprefix("./")
        for k in range(i - 1, last_end - 1, -1):
            if name:
                break
            name = _name_in(lines[k], files)
        if name and not name.startswith("/") and ".." not in Path(name).parts and not is_test(name):
            out[name] = "\n".join(body) + "\n"
        i = last_end = j + 1
    return out


def run_bare(meta: dict, work: Path, timeout: float) -> dict:
    from langchain_core.messages import HumanMessage

    from codur.config import CodurConfig
    from codur.llm.factory import ConfigModelProvider

    base = CodurConfig()
    profile = base.profiles_for("actor")[0].model_copy(
        update={"temperature": 0.0, "max_tokens": BARE_MAX_TOKENS, "timeout_s": timeout})
    config = base.model_copy(update={"profiles": {"bare": profile}, "roles": {"actor": ["bare"]}})
    provider = ConfigModelProvider(config)
    model = provider.models_for("actor")[0]
    reply = model.invoke([HumanMessage(bare_prompt(meta["task"], meta["kind"], work))])
    text = reply.content if isinstance(reply.content, str) else str(reply.content)
    usage = getattr(reply, "usage_metadata", None) or {}
    rec = {"status": "success", "llm_calls": 1, "tokens": usage.get("total_tokens", 0), "answer": text}
    if meta["kind"] == "question":
        return {**rec, "reason": "answered", "fixer": text}
    files = {p.relative_to(work).as_posix() for p in work.rglob("*.py")}
    written = parse_reply(text, files)
    for path, content in written.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(content)
    reason = f"wrote {len(written)} file(s)" if written else "no file in the reply"
    return {**rec, "status": "success" if written else "failed", "reason": reason,
            "fixer": "bare: " + (", ".join(sorted(written)) or text)}


def run_bare_pair(task: Path, meta: dict, timeout: float) -> dict:
    """The bench line of ``bare`` on ``task``, run in this process on a temp copy."""
    with tempfile.TemporaryDirectory(prefix=f"bench_{task.name}_") as tmp:
        work = Path(tmp) / task.name
        shutil.copytree(task, work, ignore=IGNORE)
        t0 = time.monotonic()
        try:
            rec = run_bare(meta, work, timeout)
        except Exception as exc:  # noqa: BLE001 - one broken run is a record, not the end of the bench
            name = type(exc).__name__
            rec = {"status": "timeout" if "Timeout" in name else "error", "reason": f"{name}: {exc}"[:300],
                   "llm_calls": 0, "tokens": 0, "answer": "", "fixer": ""}
        seconds = time.monotonic() - t0
        solved = judge(task, meta, work, rec.pop("answer"))
    return bench_line(task.name, meta["kind"], "bare", solved, rec, seconds)


def bench_line(task: str, kind: str, mode: str, solved: bool, rec: dict, seconds: float, **extra: object) -> dict:
    """One --out line: rec gives status, reason, llm_calls, tokens and fixer; seconds is the run's wall time."""
    return {"task": task, "kind": kind, "mode": mode, "solved": solved, "status": rec["status"],
            "reason": rec["reason"], "llm_calls": rec["llm_calls"], "tokens": rec["tokens"],
            "seconds": round(seconds, 1), "fixer": " ".join(rec["fixer"].split())[:120], **extra}


def keep(line: dict, out: Path | None) -> None:
    """Print ``line`` and append it to ``out``."""
    print(f"{'✓' if line['solved'] else '✗'} {line['task']:<28} {line['mode']:<9} {line['seconds']:>6.0f}s  "
          f"{line['status']}/{line['reason'][:60]}  calls={line['llm_calls']} tokens={line['tokens']}", flush=True)
    if out:
        with out.open("a") as f:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------- codur modes: one codur batch

def batch_task(task: Path, meta: dict, mode: str, repo: Path, timeout: float) -> BatchTask:
    """The (task, mode) pair as a codur batch task (id ``task:mode``) on ``repo``, the task's copy
    without task.toml and solution/; ``timeout`` is the run's limit in seconds."""
    settings = {"sample_format": FORMAT_MODES[mode]} if mode in FORMAT_MODES else None
    return BatchTask(id=f"{task.name}:{mode}", repo=str(repo), task=meta["task"], fixers=FIXERS.get(mode),
                     settings=settings, timeout_s=timeout)


class BenchResults:
    """The batch's result store: each finished task's record is judged on its working copy and
    kept as a bench line (printed, appended to --out); the earlier lines (--resume) are the
    records the batch skips.

    Args:
        pairs: batch task id -> (task folder, its task.toml, mode).
        done: the earlier bench lines of these pairs, by (task, mode).
        out: the --out file, or None.
        workdir: the batch's working copies, ``<workdir>/<id>``.
    """

    def __init__(self, pairs: dict[str, tuple[Path, dict, str]], done: dict[tuple[str, str], dict],
                 out: Path | None, workdir: Path) -> None:
        self.pairs, self.out, self.workdir = pairs, out, workdir
        self.lines: dict[tuple[str, str], dict] = {}
        self._earlier = [{"id": f"{t}:{m}", **r} for (t, m), r in done.items()]

    def records(self) -> list[dict]:
        return self._earlier

    def done_ids(self) -> set[str]:
        return {r["id"] for r in self._earlier}

    def append(self, record: dict) -> None:
        """Judge the batch ``record`` (a RunResult's fields plus the batch's) and keep its bench line."""
        rec = {"status": record["status"], "reason": record["reason"], "fixer": record["output_text"],
               "llm_calls": int(record["metadata"].get("usage", {}).get("llm_calls", 0)), "tokens": record["tokens"]}
        self._keep(record["id"], rec, record["output_text"], record["duration_s"], worker=record["worker"],
                   run_id=record["run_id"], patch_by=record["fixer"])

    def on_event(self, event: dict) -> None:
        """A task lost in flight (its process killed or crashed) is a bench line with status error."""
        if event["event_type"] == "task.lost":
            rec = {"status": "error", "reason": f"lost: {event['error']}"[:300], "fixer": "", "llm_calls": 0,
                   "tokens": 0}
            self._keep(event["id"], rec, "", 0.0)
        elif event["event_type"] == "batch.model_server":
            print(f"model server: {event.get('url') or event.get('error')}", flush=True)

    def close(self) -> None:
        pass

    def _keep(self, id_: str, rec: dict, answer: str, seconds: float, **extra: object) -> None:
        task, meta, mode = self.pairs[id_]
        work = self.workdir / id_
        solved = work.is_dir() and judge(task, meta, work, answer)
        shutil.rmtree(work, ignore_errors=True)
        line = bench_line(task.name, meta["kind"], mode, solved, rec, seconds, **extra)
        self.lines[(task.name, mode)] = line
        keep(line, self.out)


def run_codur(tasks: list[Path], metas: dict[Path, dict], modes: list[str], timeout: float, workers: int,
              out: Path | None, done: dict[tuple[str, str], dict]) -> dict[tuple[str, str], dict]:
    """Run the codur ``modes`` on ``tasks`` as one codur batch (``run_batch``, what ``codur batch`` runs)
    of ``workers`` tasks at a time; return the bench lines by (task, mode), the ``done`` ones included."""
    with tempfile.TemporaryDirectory(prefix="bench_batch_") as tmp:
        root, batch, pairs = Path(tmp), [], {}
        for task in tasks:
            repo = root / "repos" / task.name
            shutil.copytree(task, repo, ignore=IGNORE)
            for mode in modes:
                bt = batch_task(task, metas[task], mode, repo, timeout)
                batch.append(bt)
                pairs[bt.id] = (task, metas[task], mode)
        earlier = {(t.name, m): done[(t.name, m)] for t in tasks for m in modes if (t.name, m) in done}
        store = BenchResults(pairs, earlier, out, root / "work")
        run_batch(batch, store, BatchSettings(workdir=root / "work", workers=workers), on_event=store.on_event)
    return {**earlier, **store.lines}


# ---------------------------------------------------------------- table

def load(path: Path) -> dict[tuple[str, str], dict]:
    recs = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                recs[(r["task"], r["mode"])] = r  # the last record of a pair wins
    return recs


def print_table(recs: dict[tuple[str, str], dict]) -> None:
    modes = [m for m in MODES if any(k[1] == m for k in recs)]
    tasks = sorted({k[0] for k in recs})
    kinds = {r["task"]: r["kind"] for r in recs.values()}
    w = max([len(t) for t in tasks] + [4])
    print(f"\n{'task':<{w}}  {'kind':<20}" + "".join(f"{m:>10}" for m in modes))
    for t in tasks:
        cells = []
        for m in modes:
            r = recs.get((t, m))
            cells.append(f"{('✓' if r['solved'] else '✗') + ' ' + str(round(r['seconds'])) + 's':>10}" if r
                         else f"{'-':>10}")
        print(f"{t:<{w}}  {kinds[t]:<20}" + "".join(cells))
    print()
    rows = {"solved": [], "model calls": [], "tokens": [], "wall s": [], "median s (solved)": [],
            "median s (unsolved)": []}
    for m in modes:
        rs = [r for k, r in recs.items() if k[1] == m]
        ok = [r["seconds"] for r in rs if r["solved"]]
        rows["solved"].append(f"{len(ok)}/{len(rs)}")
        rows["model calls"].append(str(sum(r["llm_calls"] for r in rs)))
        rows["tokens"].append(str(sum(r["tokens"] for r in rs)))
        rows["wall s"].append(str(round(sum(r["seconds"] for r in rs))))
        rows["median s (solved)"].append(str(round(statistics.median(ok))) if ok else "-")
        given_up = [r["seconds"] for r in rs if not r["solved"]]  # the time to give up
        rows["median s (unsolved)"].append(str(round(statistics.median(given_up))) if given_up else "-")
    for name, vals in rows.items():
        print(f"{name:<{w + 22}}" + "".join(f"{v:>10}" for v in vals))

    def solved(m: str) -> set[str]:
        return {k[0] for k, r in recs.items() if k[1] == m and r["solved"]}

    def ran(m: str) -> set[str]:
        return {k[0] for k in recs if k[1] == m}

    if "bare" in modes and "mutation" in modes:
        both = ran("bare") & ran("mutation")
        print(f"\nbare ∪ mutation: {len(solved('bare') & both | solved('mutation') & both)}/{len(both)} solved")
    if "bare" in modes and "default" in modes:
        both = ran("bare") & ran("default")
        d_un, b_un = both - solved("default"), both - solved("bare")
        print(f"unsolved of {len(both)}: default {len(d_un)}, bare {len(b_un)}; "
              f"solved by bare, not default: {', '.join(sorted(d_un - b_un)) or 'none'}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modes", default=",".join(MAIN_MODES),
                    help="comma list of " + ", ".join(MODES) + " (default: " + ",".join(MAIN_MODES) + ")")
    ap.add_argument("--tasks", default="", help="comma list of task-folder prefixes (default: all)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per codur run (default 600)")
    ap.add_argument("--out", type=Path, help="JSON-lines results file (appended)")
    ap.add_argument("--resume", action="store_true", help="skip (task, mode) pairs already in --out")
    ap.add_argument("--workers", type=int, default=1,
                    help="codur runs at once (the batch's workers; default 1, as the earlier figures)")
    ap.add_argument("--base-url", help="OpenAI-compatible endpoint (sets CODUR_BASE_URL)")
    ap.add_argument("--model", help="model name at the endpoint (sets CODUR_MODEL)")
    ap.add_argument("--table", type=Path, metavar="PATH", help="only print the table of an existing --out file")
    args = ap.parse_args(argv)
    if args.table:
        print_table(load(args.table))
        return 0
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if bad := [m for m in modes if m not in MODES]:
        ap.error(f"unknown mode(s) {bad}; choose from {MODES}")
    modes = [m for m in MODES if m in modes]
    if args.workers < 1:
        ap.error("--workers must be at least 1")
    if args.base_url:
        os.environ["CODUR_BASE_URL"] = args.base_url
    if args.model:
        os.environ["CODUR_MODEL"] = args.model
    prefixes = [p.strip() for p in args.tasks.split(",") if p.strip()]
    tasks = sorted(p for p in TASKS_DIR.iterdir() if (p / "task.toml").is_file()
                   and (not prefixes or any(p.name.startswith(x) for x in prefixes)))
    done = load(args.out) if args.out and args.resume else {}
    metas = {task: tomllib.loads((task / "task.toml").read_text()) for task in tasks}
    recs: dict[tuple[str, str], dict] = {}
    if "bare" in modes:
        for task in tasks:
            if (task.name, "bare") in done:
                recs[(task.name, "bare")] = done[(task.name, "bare")]
                continue
            recs[(task.name, "bare")] = r = run_bare_pair(task, metas[task], args.timeout)
            keep(r, args.out)
    if codur_modes := [m for m in modes if m != "bare"]:
        recs.update(run_codur(tasks, metas, codur_modes, args.timeout, args.workers, args.out, done))
    print_table(recs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
