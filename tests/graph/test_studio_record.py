"""One run record for every way in: a run of the graph alone (Studio, ``langgraph dev``'s API,
``codur.build_graph().invoke``) writes the same folder, trace, journal, result and
``.codur/.gitignore`` as the CLI, so ``codur runs``, ``codur show`` and ``codur undo`` see it.

On main, after a Studio run fixed a file, ``codur runs`` said "no runs" and ``codur undo``
"nothing to undo", and the run left an untracked ``.codur/``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from typer.testing import CliRunner

import codur
from codur.commands.app import app, route
from codur.graph.builder import studio_graph

FIXED = "if quantity >= BULK_THRESHOLD:"
SETTINGS = {"fixers": ["mutation"], "repair_workers": 1}


def cli(*args: str):
    return CliRunner().invoke(app, route(list(args)), prog_name="codur")


def test_a_studio_run_is_listed_shown_and_undone(invoice_repo: Path):
    before = (invoice_repo / "billing.py").read_text()
    final = studio_graph().invoke({"task": "make the failing tests pass", "repo": str(invoice_repo)},
                                  {"recursion_limit": 60}, context=SETTINGS)
    assert final["status"] == "success", (final["status"], final["reason"])
    assert FIXED in (invoice_repo / "billing.py").read_text()
    assert (invoice_repo / ".codur" / ".gitignore").read_text() == "*\n"
    run_dir = invoice_repo / ".codur" / "runs" / final["run_id"]
    trace = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]
    kinds = [e["event_type"] for e in trace]
    assert kinds[0] == "run.start" and kinds[-1] == "run.end" and "engine.state" in kinds and "plan.scope" in kinds
    assert {e["run_id"] for e in trace} == {final["run_id"]}
    assert json.loads((run_dir / "result.json").read_text())["status"] == "success"

    listed = cli("runs", "--repo", str(invoice_repo), "--json")
    runs = json.loads(listed.stdout)
    assert [(r["run_id"], r["status"], r["files_changed"]) for r in runs] == [(final["run_id"], "success",
                                                                               ["billing.py"])]
    shown = cli("show", final["run_id"], "--repo", str(invoice_repo))
    assert shown.exit_code == 0 and "billing.py" in shown.stdout, shown.output
    undone = cli("undo", "--repo", str(invoice_repo))
    assert undone.exit_code == 0, undone.output
    assert (invoice_repo / "billing.py").read_text() == before


def test_build_graph_invoke_writes_the_record_and_git_ignores_it(invoice_repo: Path):
    subprocess.run(["git", "init", "-q", str(invoice_repo)], check=True)
    final = codur.build_graph().invoke({"task": "make the failing tests pass", "repo": str(invoice_repo)},
                                       {"recursion_limit": 60}, context=SETTINGS)
    assert final["status"] == "success"
    runs = json.loads(cli("runs", "--repo", str(invoice_repo), "--json").stdout)
    assert [r["run_id"] for r in runs] == [final["run_id"]]
    status = subprocess.run(["git", "-C", str(invoice_repo), "status", "--porcelain"], capture_output=True,
                            text=True, check=True).stdout
    assert ".codur" not in status  # git ignores the run's folder
    second = codur.build_graph().invoke({"task": "make the failing tests pass", "repo": str(invoice_repo)},
                                        {"recursion_limit": 60}, context=SETTINGS)
    assert second["run_id"] != final["run_id"]  # each run its own record
