"""Solve-rate benchmark: codur (and the bare model) over the task repos in bench/agent/tasks.

Each (task, mode) runs in a fresh temp copy of the task folder without task.toml and
solution/. Modes, in this order:
  bare      the model alone: one chat call holding the task and every .py file; the files
            of its reply (`path` line + ```python block) are written, the answer is judged
  loop      codur with fixers=["agent"]     (the tool-loop agent alone)
  sampling  codur with fixers=["sampling"]
  mutation  codur with fixers=["mutation"]
  default   codur with CodurConfig() defaults
Solved: bug/feature/fixture tasks -> the task's original test files are copied back over
the copy, then `pytest` exits 0 within 60 s; question tasks -> the answer (codur: the
summary; bare: the reply) contains every keyword, case-insensitive.

Usage:
  .venv/bin/python bench/agent/run.py [--modes bare,mutation] [--tasks a_01,b_1]
      [--timeout 600] [--out results.jsonl] [--resume] [--base-url URL --model NAME]
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


# ---------------------------------------------------------------- codur modes

def run_codur(mode: str, meta: dict, work: Path, timeout: float) -> dict:
    from codur import CodurConfig, RunRequest, run

    extra = {"sample_format": FORMAT_MODES[mode]} if mode in FORMAT_MODES else {}
    config = CodurConfig(timeout_s=timeout, **({"fixers": FIXERS[mode]} if mode in FIXERS else {}), **extra)
    r = run(RunRequest(task=meta["task"], repo=work), config=config)
    return {"status": r.status.value, "reason": r.reason, "llm_calls": r.llm_calls, "tokens": r.tokens,
            "answer": r.summary, "fixer": r.summary}


def run_one(task: Path, meta: dict, mode: str, timeout: float) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"bench_{task.name}_") as tmp:
        work = Path(tmp) / task.name
        shutil.copytree(task, work, ignore=IGNORE)
        t0 = time.monotonic()
        try:
            rec = run_bare(meta, work, timeout) if mode == "bare" else run_codur(mode, meta, work, timeout)
        except Exception as exc:  # noqa: BLE001 - one broken run is a record, not the end of the bench
            name = type(exc).__name__
            rec = {"status": "timeout" if "Timeout" in name else "error", "reason": f"{name}: {exc}"[:300],
                   "llm_calls": 0, "tokens": 0, "answer": "", "fixer": ""}
        seconds = time.monotonic() - t0
        solved = judge(task, meta, work, rec.pop("answer"))
    return {"task": task.name, "kind": meta["kind"], "mode": mode, "solved": solved, "status": rec["status"],
            "reason": rec["reason"], "llm_calls": rec["llm_calls"], "tokens": rec["tokens"],
            "seconds": round(seconds, 1), "fixer": " ".join(rec["fixer"].split())[:120]}


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
    if args.base_url:
        os.environ["CODUR_BASE_URL"] = args.base_url
    if args.model:
        os.environ["CODUR_MODEL"] = args.model
    prefixes = [p.strip() for p in args.tasks.split(",") if p.strip()]
    tasks = sorted(p for p in TASKS_DIR.iterdir() if (p / "task.toml").is_file()
                   and (not prefixes or any(p.name.startswith(x) for x in prefixes)))
    done = load(args.out) if args.out and args.resume else {}
    recs: dict[tuple[str, str], dict] = {}
    for task in tasks:
        meta = tomllib.loads((task / "task.toml").read_text())
        for mode in modes:
            if (task.name, mode) in done:
                recs[(task.name, mode)] = done[(task.name, mode)]
                continue
            r = run_one(task, meta, mode, args.timeout)
            recs[(task.name, mode)] = r
            print(f"{'✓' if r['solved'] else '✗'} {task.name:<28} {mode:<9} {r['seconds']:>6.0f}s  "
                  f"{r['status']}/{r['reason'][:60]}  calls={r['llm_calls']} tokens={r['tokens']}", flush=True)
            if args.out:
                with args.out.open("a") as f:
                    f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print_table(recs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
