"""bench/repair/cloze.py: the cloze fixer's fills with the embedded model (hold the model lock).

Modes:
  --fim-vs-chat  on the three programs of tests/patch/test_cloze.py, every mask of the line the
                 fix changes, one greedy fill each, asked three ways: plain fill-in-the-middle
                 (``/v1/completions``, the fixer's prompt), the same under the grammar that
                 excludes the masked code (the fixer's way) and the fixer's chat form (a marked hole).
                 Per way: fills that parse, distinct candidates, fixes (the program's tests
                 pass), seconds per fill.
  --unlike       on those programs, every mask of every line of the function the fix changes, one
                 greedy fill each, asked plainly and under the grammar that excludes the masked
                 code (codur/patch/unlike.py): fills, echoes, candidates, fixes, seconds per fill.
  --pipeline     the candidate-patch pipeline with one fixer at a time (``cloze``, ``sampling``)
                 on those programs and on bench/repair programs (``--only``, name prefixes): model
                 calls, candidates, echo share (replies unchanged or without code), model
                 seconds, candidates per model-minute, fixed.

Usage:
  flock /tmp/codur-model.lock .venv/bin/python bench/repair/cloze.py --fim-vs-chat [--ours shipping]
  flock /tmp/codur-model.lock .venv/bin/python bench/repair/cloze.py --unlike
  flock /tmp/codur-model.lock .venv/bin/python bench/repair/cloze.py --pipeline [--ours ""] [--only t20,t27]
      [--budget 120] [--fixers cloze,sampling]
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from codur.config import CodurConfig  # noqa: E402
from codur.config.tables import ModelProfile  # noqa: E402
from codur.llm.factory import get_chat_model  # noqa: E402
from codur.patch import PatchPipeline, PatchSettings  # noqa: E402
from codur.patch.fixers.cloze import judge  # noqa: E402
from codur.patch.holes import ChatAsk, FimAsk, fim_tokens  # noqa: E402
from codur.patch.masks import masks  # noqa: E402
from tests.patch.test_cloze import HEADERS, REMINDERS, SHIPPING  # noqa: E402
from tests.repair.conftest import write_repo  # noqa: E402

#: (name, files, the file and the line the fix changes)
PROGRAMS = (("shipping", SHIPPING, "shipping.py", 8), ("reminders", REMINDERS, "reminders.py", 5),
            ("headers", HEADERS, "headers.py", 3))


def passes(repo: Path, file: str, text: str) -> bool:
    """The program's tests pass with ``file`` replaced by ``text`` (the original put back after)."""
    path = repo / file
    original = path.read_text()
    try:
        path.write_text(text)
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=repo,
                              capture_output=True, timeout=60).returncode == 0
    finally:
        path.write_text(original)


def fim_vs_chat(model, ours: list[str]) -> None:
    """On ``ours``, every mask of the line the fix changes, one greedy fill each, asked three ways:
    plain fill-in-the-middle, the fixer's (fill-in-the-middle under the grammar that excludes the
    masked code) and the fixer's chat form; per way: fills, fills that parse, distinct candidates,
    fixes, seconds per fill."""
    plain, fixer = FimAsk(model, fim_tokens(model)), FimAsk(model, fim_tokens(model))
    plain.unlike = False
    ways = {"fim": plain, "fim+grammar": fixer, "chat": ChatAsk(model)}
    rows = {way: [0, 0, 0, 0, 0.0] for way in ways}  # fills, parse, distinct, fixes, seconds
    for name, files, file, line in [p for p in PROGRAMS if p[0] in ours]:
        with tempfile.TemporaryDirectory() as tmp:
            repo = write_repo(Path(tmp), files)
            text = (repo / file).read_text()
            for way, ask in ways.items():
                seen: set[str] = set()
                for mask in masks(text, file, [line]):
                    start = time.monotonic()
                    reply, tokens = ask("", mask, text, 0.0, 0)
                    seconds = time.monotonic() - start
                    filled = judge(mask, text, reply, 0, 0.0, seconds, tokens, seen)
                    row = rows[way]
                    row[0] += 1
                    row[4] += seconds
                    new = mask.apply(text, reply.split("\n")[0].strip())
                    try:
                        ast.parse(new)
                        row[1] += 1
                    except SyntaxError:
                        pass
                    fixed = filled.sample is not None and passes(repo, file, filled.sample.new_text)
                    row[2] += filled.sample is not None
                    row[3] += fixed
                    print(f"{name:10} {way:11} {mask.template:9} {filled.outcome:9} {'fixed' if fixed else '':5} "
                          f"{seconds:5.1f}s {reply[:60]!r}", flush=True)
    print("\n| way | fills | fills that parse | distinct candidates | fixes | seconds per fill |")
    print("|---|---|---|---|---|---|")
    for way, (n, ok, distinct, fixes, seconds) in rows.items():
        print(f"| {way} | {n} | {ok} | {distinct} | {fixes} | {seconds / max(n, 1):.1f} |")


def unlike_vs_plain(model, ours: list[str]) -> None:
    """Every mask of every line of the function the fix changes, one greedy fill each, asked
    fill-in-the-middle plainly and under the grammar that excludes the masked code
    (:mod:`codur.patch.unlike`): per way, fills, echoes, candidates, fixes, seconds per fill."""
    rows = {"plain": [0, 0, 0, 0, 0.0], "unlike": [0, 0, 0, 0, 0.0]}  # fills, echoes, candidates, fixes, s
    for name, files, file, line in [p for p in PROGRAMS if p[0] in ours]:
        with tempfile.TemporaryDirectory() as tmp:
            repo = write_repo(Path(tmp), files)
            text = (repo / file).read_text()
            func = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef)
                        and n.lineno <= line <= n.end_lineno)
            holes = masks(text, file, list(range(func.lineno + 1, func.end_lineno + 1)))
            for way, row in rows.items():
                ask, seen = FimAsk(model, fim_tokens(model)), set()
                ask.unlike = way == "unlike"
                for mask in holes:
                    start = time.monotonic()
                    reply, tokens = ask("", mask, text, 0.0, 0)
                    seconds = time.monotonic() - start
                    filled = judge(mask, text, reply, 0, 0.0, seconds, tokens, seen)
                    fixed = filled.sample is not None and passes(repo, file, filled.sample.new_text)
                    for i, add in enumerate((1, filled.outcome == "unchanged", filled.sample is not None, fixed,
                                             seconds)):
                        row[i] += add
                    print(f"{name:10} {way:6} {mask.line:3} {mask.template:9} {filled.outcome:9} "
                          f"{'fixed' if fixed else '':5} {seconds:5.1f}s {reply[:60]!r}", flush=True)
    print("\n| way | fills | echoes | distinct candidates | fixes | seconds per fill |")
    print("|---|---|---|---|---|---|")
    for way, (n, echoes, distinct, fixes, seconds) in rows.items():
        share = echoes / max(n, 1)
        print(f"| {way} | {n} | {echoes} ({share:.0%}) | {distinct} | {fixes} | {seconds / max(n, 1):.1f} |")


def programs(only: str, ours: list[str]) -> list[tuple[str, dict[str, str] | Path]]:
    out: list[tuple[str, dict[str, str] | Path]] = [(name, files) for name, files, _, _ in PROGRAMS if name in ours]
    here = Path(__file__).resolve().parent
    out += [(p.name, p) for corpus in ("corpus", "corpus_taxonomy") for p in sorted((here / corpus).iterdir())
            if any(o and p.name.startswith(o) for o in only.split(","))]
    return out


def pipeline(model, only: str, budget: float, fixers: list[str], ours: list[str]) -> None:
    print("| program | fixer | model calls | candidates | echo share | model s | candidates / model-min | fixed | s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, source in programs(only, ours):
        for fixer in fixers:
            with tempfile.TemporaryDirectory() as tmp:
                if isinstance(source, Path):
                    subprocess.run(["cp", "-r", f"{source}/.", tmp], check=True)
                    repo = Path(tmp)
                else:
                    repo = write_repo(Path(tmp), source)
                events: list = []
                settings = PatchSettings.from_config(CodurConfig(fixers=[fixer], patch_time_budget_s=budget,
                                                                 repair_workers=2))
                start = time.monotonic()
                result = PatchPipeline(repo, settings, models=[model], on_event=events.append).run()
                calls = [e for e in events if e.event_type in ("patch.fill", "patch.sample")]
                cands = sum(e.outcome == "candidate" for e in calls)
                echoes = sum(e.outcome in ("unchanged", "no_code") for e in calls)
                model_s = sum(e.seconds for e in calls)
                print(f"| {name} | {fixer} | {len(calls)} | {cands} | {echoes / max(len(calls), 1):.0%} | "
                      f"{model_s:.0f} | {cands / max(model_s / 60, 1e-9):.1f} | "
                      f"{'yes' if result.status == 'patched' else 'no'} | {time.monotonic() - start:.0f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fim-vs-chat", action="store_true")
    ap.add_argument("--pipeline", action="store_true")
    ap.add_argument("--unlike", action="store_true", help="greedy fills with and without the grammar")
    ap.add_argument("--only", default="", help="bench/repair programs by name prefix, e.g. t20,t27")
    ap.add_argument("--ours", default="shipping,reminders,headers", help="which of our three programs run")
    ap.add_argument("--budget", type=float, default=120.0, help="seconds of search per program and fixer")
    ap.add_argument("--fixers", default="cloze,sampling", help="the fixers compared, one run each")
    args = ap.parse_args()
    model = get_chat_model(ModelProfile(base_url=None))
    if args.fim_vs_chat:
        fim_vs_chat(model, args.ours.split(","))
    if args.unlike:
        unlike_vs_plain(model, args.ours.split(","))
    if args.pipeline:
        pipeline(model, args.only, args.budget, args.fixers.split(","), [o for o in args.ours.split(",") if o])


if __name__ == "__main__":
    main()
