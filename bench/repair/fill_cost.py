"""bench/repair/fill_cost.py: what one cloze fill costs on a long real module (hold the model lock).

The cloze fixer asks every hole of a few lines in a row. The server (llama.cpp) keeps the last
prompt's tokens and reads only the part of the next prompt that differs, so a fill's cost is the
tokens after the first difference: the text from the hole on. This bench asks the greedy fill of
every mask of the given lines of a real module, in the fixer's order, under the fixer's grammar,
once per window setting, and prints for each fill the tokens the server read (its own
``timings.prompt_n``) and the seconds; then the totals per setting.

Settings (``--ways``, comma list): ``slide`` (the window's start moves with each hole: the code
before this bench), ``step`` (the start moves in steps of ``holes.STEP_CHARS``); each with
``--after`` characters after the hole (comma list, default: the fixer's ``AFTER_CHARS``).

The module defaults to bench/real's parse-precision-zero-float (``parse/__init__.py`` of parse
1.22.0, 1,300 lines; the lines localization ranks first there, and the line of the real fix).

Usage:
  flock /tmp/codur-model.lock .venv/bin/python bench/repair/fill_cost.py
  flock /tmp/codur-model.lock .venv/bin/python bench/repair/fill_cost.py --ways slide,step --after 1500,600
  flock /tmp/codur-model.lock .venv/bin/python bench/repair/fill_cost.py --module path.py --lines 10,11
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "real"))

from codur.llm.local import LocalModelServer  # noqa: E402
from codur.patch import holes  # noqa: E402
from codur.patch.masks import masks  # noqa: E402
from codur.patch.unlike import gbnf  # noqa: E402

BUG, FILE, LINES = "parse-precision-zero-float", "parse/__init__.py", "726,727,728,730"


def module_text(path: str | None) -> str:
    """The module's text: ``path``, or the default bug's module built from its sdist."""
    if path:
        return Path(path).read_text()
    import bugs  # bench/real
    bug = next(b for b in bugs.load() if b.id == BUG)
    with tempfile.TemporaryDirectory() as tmp:
        return (bugs.build(bug, Path(tmp) / bug.id, venv=False) / FILE).read_text()


def ask(url: str, prompt: str, grammar: str) -> tuple[float, dict]:
    """(seconds, the server's reply) of one greedy fill of ``prompt``."""
    body = {"model": "codur", "prompt": prompt, "max_tokens": holes.MAX_TOKENS, "temperature": 0,
            "stop": holes.STOP, "grammar": grammar}
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    t0 = time.monotonic()
    with urllib.request.urlopen(request, timeout=600) as resp:
        return time.monotonic() - t0, json.load(resp)


def run_way(url: str, text: str, file: str, lines: list[int], way: str, after: int) -> tuple[float, int, int]:
    """Every mask's fill under one setting, printed; (seconds, tokens read, fills)."""
    holes.STEP_CHARS, holes.AFTER_CHARS = (1 if way == "slide" else STEP), after
    ask(url, "# a prompt that shares nothing with the fills\n" * 20, "root ::= \"x\"")
    pre, suf, mid = holes.FIM_TOKENS["qwen2.5-coder"]
    seconds = read = 0
    found = masks(text, file, lines)
    for m in found:
        a, b = holes.around(m, text)
        s, reply = ask(url, f"{pre}{a}{suf}{b}{mid}", gbnf(m.original, m.suffix(text)))
        n = reply.get("timings", {}).get("prompt_n", 0)
        seconds, read = seconds + s, read + n
        print(f"{way:5} {after:5} {m.line:5} {m.template:7} {s:6.2f} s {n:5} of {reply['usage']['prompt_tokens']:5} "
              f"tokens read  {reply['choices'][0]['text'][:50]!r}", flush=True)
    return seconds, read, len(found)


STEP = holes.STEP_CHARS


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--module", help="a Python module (default: the parse bug's)")
    ap.add_argument("--file", default=FILE, help="the module's path in its repo (for the masks)")
    ap.add_argument("--lines", default=LINES, help="lines masked, best first")
    ap.add_argument("--ways", default="slide,step", help="window starts compared: slide, step")
    ap.add_argument("--after", default=str(holes.AFTER_CHARS), help="characters after the hole, comma list")
    args = ap.parse_args()
    text = module_text(args.module)
    lines = [int(x) for x in args.lines.split(",")]
    server = LocalModelServer().start()
    url = f"http://127.0.0.1:{server.port}/v1/completions"
    rows = []
    try:
        for after in (int(a) for a in args.after.split(",")):
            for way in args.ways.split(","):
                rows.append((way, after, *run_way(url, text, args.file, lines, way, after)))
    finally:
        server.stop()
    print(f"\n{'window':7} {'after':>6} {'fills':>6} {'s':>7} {'s/fill':>7} {'tokens read/fill':>17}")
    for way, after, seconds, read, n in rows:
        print(f"{way:7} {after:6} {n:6} {seconds:7.1f} {seconds / n:7.2f} {read / n:17.0f}")


if __name__ == "__main__":
    main()
