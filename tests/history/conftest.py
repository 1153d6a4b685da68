"""Real runs with the scripted model on a copy of examples/invoice, for the history commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from codur import CodurConfig, RunRequest, run
from codur.llm import ScriptedChatModel, StaticModelProvider

FIX_OLD = "if quantity > BULK_THRESHOLD:"
FIX_NEW = "if quantity >= BULK_THRESHOLD:"
TASK = "make the failing tests pass"


def call(name: str, **arguments) -> str:
    """A tool call the way the local model writes it: a fenced JSON block in the content."""
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def scripted_run(repo: Path, actor: list, *, manifest: bool = True, **config):
    """Run codur on ``repo`` with the scripted actor (the engine writes the journal manifest at the
    end of every run; ``manifest=False`` removes it, as for a run killed before it wrote up)."""
    config = {"critic": False, "repair": False, "retry_base_delay_s": 0, **config}
    models = StaticModelProvider({"actor": ScriptedChatModel(replies=actor)})
    result = run(RunRequest(task=TASK, repo=repo), models=models, config=CodurConfig(**config))
    assert (result.run_dir / "journal.json").is_file()
    if not manifest:
        (result.run_dir / "journal.json").unlink()
    return result


def successful_run(repo: Path):
    """Fixes billing.py, creates notes.txt, deletes old.txt (which the fixture put there)."""
    return scripted_run(repo, [
        call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW),
        call("write_file", path="notes.txt", content="bulk discount from 10 items\n"),
        call("apply_patch", patch="--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-obsolete\n"),
        "Fixed.",
    ])


def failed_run(repo: Path, **config):
    """Edits the docstring only: the tests still fail; one turn allowed, so status failed (its
    edit is reverted unless ``keep_failed=True``)."""
    return scripted_run(repo, [
        call("replace_in_file", path="billing.py", old="10% when at least", new="10% from"),
        "Reworded the docstring.",
    ], max_turns=1, **config)


@pytest.fixture
def repo(invoice_repo: Path) -> Path:
    """examples/invoice with one extra file a run may delete."""
    (invoice_repo / "old.txt").write_text("obsolete\n")
    return invoice_repo


@pytest.fixture
def cli():
    """Invoke the real ``codur`` Typer app in-process, 200 columns wide; returns the Result."""
    from codur.commands.app import app

    def invoke(*args: str):
        return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})

    return invoke


def snapshot(repo: Path) -> dict[str, bytes]:
    """Every file of the repo outside .codur and caches, by relative path."""
    return {p.relative_to(repo).as_posix(): p.read_bytes() for p in sorted(repo.rglob("*"))
            if p.is_file() and not {".codur", "__pycache__", ".pytest_cache"} & set(p.relative_to(repo).parts)}
