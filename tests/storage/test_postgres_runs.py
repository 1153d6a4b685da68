"""Runs kept in a real PostgreSQL server (tests/storage/conftest.py): a run checkpointed there is
interrupted and resumed from it, its session memory and its row in the run list are there, and
``codur runs --database`` lists it. Scripted models on a copy of examples/invoice."""

from __future__ import annotations

import json
import shutil
import socket
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from codur import CodurConfig
from codur.engine import MockProvider, RunRequest, RunStatus
from codur.engine.runner import run
from codur.memory import recall

pytest.importorskip("psycopg", reason="psycopg is not installed (pip install codur[postgres])")

from codur.storage.postgres import PostgresRunLog, PostgresSessionStore  # noqa: E402
from codur.storage.schema import connect  # noqa: E402

TASK = "make the failing tests pass"
FIX_OLD, FIX_NEW = "if quantity > BULK_THRESHOLD:", "if quantity >= BULK_THRESHOLD:"


def fix_call() -> str:
    return "```json\n" + json.dumps({"name": "replace_in_file", "arguments": {
        "path": "billing.py", "old": FIX_OLD, "new": FIX_NEW}}) + "\n```"


def config(url: str, **overrides) -> CodurConfig:
    return CodurConfig(**{"critic": False, "repair": False, "retry_base_delay_s": 0, "database_url": url,
                          **overrides})


def checkpoint_count(url: str, run_id: str) -> int:
    with connect(url) as db:
        return db.execute("SELECT count(*) AS n FROM checkpoints WHERE thread_id = %s", (run_id,)).fetchone()["n"]


def test_a_run_interrupted_while_checkpointed_in_postgres_resumes_from_it(invoice_repo: Path, database_url: str):
    cancel = threading.Event()

    def interrupted(_messages):
        cancel.set()  # the run is interrupted during its first model call
        return fix_call()

    first = run(RunRequest(input=TASK, repo=invoice_repo, cancel_event=cancel, session_id="work"),
                models=MockProvider([interrupted]), config=config(database_url))
    assert first.status is RunStatus.CANCELLED and first.diff == ""
    assert checkpoint_count(database_url, first.run_id) > 0  # the checkpoints are the database's ...
    codur_dir = invoice_repo / ".codur"
    assert not (codur_dir / "checkpoints.sqlite").exists()  # ... not the repo's
    assert not (codur_dir / "sessions.sqlite").exists()
    listed = {r["run_id"]: r for r in PostgresRunLog(database_url).runs()}
    assert listed[first.run_id]["status"] == "cancelled" and listed[first.run_id]["resumable"]

    # resumed from the database alone (anything the first run left in the repo's .codur/ is gone)
    for leftover in codur_dir.glob("*.sqlite*"):
        leftover.unlink()
    second = MockProvider([fix_call(), "Fixed."], roles={"planner": ['{"task_type": "code_fix", "steps": []}']})
    resumed = run(RunRequest(input=TASK, repo=invoice_repo, run_id=first.run_id, resume=True, session_id="work"),
                  models=second, config=config(database_url))
    assert resumed.ok and resumed.run_id == first.run_id and resumed.metadata.resumed_from
    # initialize, observe and plan ran once: the resumed run went on from execute's checkpoint
    assert resumed.nodes[:5] == ["initialize", "observe", "plan", "delegate", "execute"]
    assert resumed.nodes.count("initialize") == 1 and resumed.nodes.count("observe") == 1
    assert f"+    {FIX_NEW}" in resumed.diff
    assert checkpoint_count(database_url, first.run_id) == 0  # a finished run keeps no resume point
    with pytest.raises(ValueError, match="no checkpoint to resume from in the database"):
        run(RunRequest(input="x", repo=invoice_repo, run_id=first.run_id, resume=True), models=MockProvider([]),
            config=config(database_url))

    # session memory went to the database too: the start, the cancel, and the resumed run's end
    store = PostgresSessionStore(database_url)
    assert [e.status for e in store.history("work")] == ["running", "cancelled", "success"]
    assert [(e.task, e.status, e.files_changed) for e in recall(store, "work")] == [(TASK, "success", ["billing.py"])]
    row = {r["run_id"]: r for r in PostgresRunLog(database_url).runs()}[first.run_id]
    assert (row["status"], row["resumable"], row["repo"]) == ("success", False, str(invoice_repo))
    assert row["result"]["metadata"]["resumed_from"] == resumed.metadata.resumed_from


def test_codur_runs_database_lists_the_runs_of_every_repo(invoice_repo: Path, paginate_repo: Path,
                                                          database_url: str):
    done = run(RunRequest(input=TASK, repo=invoice_repo), models=MockProvider([fix_call(), "Fixed."]),
               config=config(database_url))
    cancel = threading.Event()
    stopped = run(RunRequest(input="fix the page offset", repo=paginate_repo, cancel_event=cancel),
                  models=MockProvider([lambda _m: cancel.set() or "stop"]), config=config(database_url))
    assert done.ok and stopped.status is RunStatus.CANCELLED
    from codur.commands.app import app

    env = {"COLUMNS": "200", "CODUR_DATABASE_URL": database_url}
    listed = CliRunner().invoke(app, ["runs", "--database", "--json"], env=env)
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)
    assert [r["run_id"] for r in rows] == [stopped.run_id, done.run_id]  # newest first
    assert [(r["status"], r["repo"], r["resumable"]) for r in rows] == [
        ("cancelled", str(paginate_repo), True), ("success", str(invoice_repo), False)]
    assert rows[1]["files_changed"] == ["billing.py"] and rows[1]["tokens"] == done.tokens
    table = CliRunner().invoke(app, ["runs", "--database"], env=env)
    assert table.exit_code == 0 and done.run_id in table.stdout and stopped.run_id in table.stdout
    lines = table.stdout.splitlines()
    assert "resume" in lines[1] and "host" in lines[1]
    row = next(line for line in lines if stopped.run_id in line)
    assert "cancelled" in row and " yes " in row and "fix the page offset" in row  # the repo follows the task

    unset = CliRunner().invoke(app, ["runs", "--database"], env={"CODUR_DATABASE_URL": ""})
    assert unset.exit_code == 2 and "no database set" in unset.output
    down = CliRunner().invoke(app, ["runs", "--database"],
                              env={"CODUR_DATABASE_URL": "postgresql://u:pw@127.0.0.1:1/none"})
    assert down.exit_code == 2 and "cannot connect" in down.output and ":pw@" not in down.output


def test_a_run_is_resumed_on_another_copy_of_the_repo(invoice_repo: Path, tmp_path: Path, database_url: str):
    """Another machine: the same repo at another path, no .codur/ of its own; the database has the run."""
    cancel = threading.Event()
    first = run(RunRequest(input=TASK, repo=invoice_repo, cancel_event=cancel),
                models=MockProvider([lambda _m: cancel.set() or fix_call()]), config=config(database_url))
    assert first.status is RunStatus.CANCELLED
    elsewhere = tmp_path / "machine-b" / "invoice"
    shutil.copytree(invoice_repo, elsewhere, ignore=shutil.ignore_patterns(".codur"))
    from codur.engine.resume import find_saved

    found = find_saved(elsewhere, first.run_id[:-2], database_url)  # a prefix, found in the database's run list
    assert (found.run_id, found.task) == (first.run_id, TASK)
    assert found.settings["critic"] is False and found.settings["repair"] is False  # the first start's settings
    assert "database_url" not in found.settings
    second = MockProvider([fix_call(), "Fixed."], roles={"planner": ['{"task_type": "code_fix", "steps": []}']})
    resumed = run(RunRequest(input=TASK, repo=elsewhere, run_id=first.run_id, resume=True), models=second,
                  config=config(database_url))
    assert resumed.ok and resumed.metadata.resumed_from and resumed.nodes.count("observe") == 1
    assert FIX_NEW in (elsewhere / "billing.py").read_text()  # the edit is this copy's
    assert FIX_NEW not in (invoice_repo / "billing.py").read_text()
    assert resumed.run_dir.is_relative_to(elsewhere)


def test_a_run_without_an_end_is_running_interrupted_or_unfinished(database_url: str, tmp_path: Path):
    from codur.history.runs import list_database_runs

    log = PostgresRunLog(database_url)
    log.started("r-here-alive", repo=str(tmp_path), run_dir=str(tmp_path / "a"), task="alive")
    no_such_pid = 2 ** 22 + 1  # above Linux's largest pid_max
    with connect(database_url) as db:
        db.execute("INSERT INTO codur_runs (run_id, repo, run_dir, task, host, pid) VALUES "
                   "('r-here-dead', %s, %s, 'killed', %s, %s), ('r-elsewhere', %s, %s, 'remote', 'other-host', 1)",
                   (str(tmp_path), str(tmp_path / "b"), socket.gethostname(), no_such_pid,
                    str(tmp_path), str(tmp_path / "c")))
    status = {r.run_id: r.status for r in list_database_runs(database_url)}
    assert status == {"r-here-alive": "running", "r-here-dead": "interrupted", "r-elsewhere": "unfinished"}
