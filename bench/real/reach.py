"""Where the developers' fix lies for the cloze fixer: for every bug, each edit of the real fix,
the rank of its line among the lines the cloze fixer masks (and so the tier that reaches it),
and the masks one fill of which would write that edit exactly.

No model runs: this measures the search space, not the model (after Long & Rinard, "An
analysis of the search spaces for generate and validate patch generation systems", ICSE
2016): an edit no mask reaches, or whose line ranks past the last tier, no fill can make,
however good the model. An *edit* here is one run of changed lines of the fix file (difflib's
opcodes, no context lines: finer than ``fix_hunks``, which merges edits 6 lines apart), comment
lines left out on both sides; version-string edits are left out. Localization is codur's own (``RepairSession`` with the
bug's failing tests as its focus, as a run started with them does).

    .venv/bin/python bench/real/reach.py [--bugs ID,...] [--out FILE.jsonl]
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import tempfile
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bugs as B  # noqa: E402 - bench/real's own modules

from codur.patch import ranking  # noqa: E402
from codur.patch.fixers.cloze import LINES, ranked_lines  # noqa: E402
from codur.patch.masks import masks  # noqa: E402
from codur.validate.session import RepairSession  # noqa: E402


def tier(rank: int | None) -> int | None:
    """The cloze tier whose lines hold ``rank`` (1-based), None past the last."""
    if rank is None:
        return None
    return next((t for t in range(1, len(LINES)) if rank <= LINES[t]), None)


def edits(old: str, new: str):
    """(first line, old text, new text, ``old`` with this edit alone) of each edit from ``old`` to
    ``new`` (a file's two versions): runs of changed lines, comment-only lines left out on both
    sides (they change nothing a test sees), version-string edits left out."""
    a = old.splitlines(keepends=True)
    keep = [k for k, row in enumerate(a) if not _comment(row)]
    code = [a[k] for k in keep]
    b = [row for row in new.splitlines(keepends=True) if not _comment(row)]
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, code, b, autojunk=False).get_opcodes():
        if op == "equal" or all(B.VERSION_LINE.match(x) for x in code[i1:i2] + b[j1:j2]):
            continue
        start = keep[i1] if i1 < len(keep) else len(a)
        end = keep[i2 - 1] + 1 if i2 > i1 else start
        yield start + 1, "".join(a[start:end]), "".join(b[j1:j2]), "".join(a[:start] + b[j1:j2] + a[end:])


def _comment(row: str) -> bool:
    return row.strip().startswith("#")


def reach(bug: B.Bug, tmp: Path) -> dict:
    """The row of ``bug``: its edits, each with its line's rank and tier and the masks reaching it."""
    repo = B.build(bug, tmp / bug.id)
    with RepairSession(repo, workers=1, focus=list(bug.failing), failing_before=list(bug.failing)) as session:
        loc = session.loc

    def read(rel: str) -> str:
        return (repo / rel).read_text()
    ranked = tuple(ranking.rank_functions(loc.scores, read, max_lines=80))
    lines = ranked_lines(types.SimpleNamespace(localization=loc, ranked=ranked, original=read))
    rank = {key: i + 1 for i, key in enumerate(lines)}
    row = {"bug": bug.id, "ranked_lines": len(lines), "edits": []}
    _, fixed = B.trees(bug)
    for file in bug.fix:
        text = read(file) if (repo / file).is_file() else ""  # "": a file the fix adds
        for line, old, new, alone in edits(text, (fixed / file).read_text()):
            near = list(range(max(1, line - 1), line + max(1, old.count("\n")) + 1))
            hits = []
            for mask in masks(text, file, near):
                head, tail = mask.prefix(text), mask.suffix(text)
                fill = alone[len(head):len(alone) - len(tail)]
                if len(alone) >= len(head) + len(tail) and alone.startswith(head) and alone.endswith(tail) \
                        and fill.strip() and "\n" not in fill.strip():
                    hits.append({"template": mask.template, "line": mask.line, "rank": rank.get((file, mask.line)),
                                 "fill": fill.strip()[:80]})
            best = min((h["rank"] for h in hits if h["rank"]), default=None)
            row["edits"].append({"file": file, "line": line, "rank": rank.get((file, line)), "old": old[:200],
                                 "new": new[:200], "masks": hits, "tier": tier(best)})
    return row


def table(rows: list[dict]) -> str:
    """Per bug: its edits, those one fill reaches, and the tier of the first of them."""
    out = [f"{'bug':34} {'edits':>5} {'one fill':>8} {'in a tier':>9}  reached by (template@rank)"]
    for r in rows:
        reached = [e for e in r["edits"] if e["masks"]]
        tiered = [e for e in reached if e["tier"]]
        how = ", ".join(sorted({f"{h['template']}@{h['rank']}" for e in tiered for h in e["masks"] if h["rank"]}))
        out.append(f"{r['bug']:34} {len(r['edits']):>5} {len(reached):>8} {len(tiered):>9}  {how}")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bugs", default="", help="comma list of bug ids or id prefixes (default: all)")
    ap.add_argument("--out", type=Path, help="also write one JSON row per bug to this file")
    args = ap.parse_args()
    want = [w for w in args.bugs.split(",") if w]
    rows = []
    for bug in B.load():
        if want and not any(bug.id.startswith(w) for w in want):
            continue
        with tempfile.TemporaryDirectory(prefix=f"reach_{bug.id}_") as tmp:
            rows.append(reach(bug, Path(tmp)))
        if args.out:
            with args.out.open("a") as fh:
                fh.write(json.dumps(rows[-1]) + "\n")
    print(table(rows))


if __name__ == "__main__":
    main()
