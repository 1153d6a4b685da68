"""Issue 12, item 4: a dry run on a repo it cannot write keeps its run folder elsewhere."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from codur import CodurConfig, RunRequest, run
from codur.llm import ScriptedChatModel, StaticModelProvider


def _dry_run(repo: Path):
    models = {"actor": ScriptedChatModel(replies=[]), "planner": ScriptedChatModel(replies=[])}
    config = CodurConfig(critic=False, repair=False, max_turns=1)
    return run(RunRequest(task="fix the failing test", repo=repo, dry_run=True), models=StaticModelProvider(models),
               config=config)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_dry_run_whose_repo_cannot_hold_codur_runs_writes_its_folder_to_the_temp_dir(invoice_repo: Path) -> None:
    (invoice_repo / ".codur").write_text("a file where codur's folder would go\n")  # mkdir fails, root or not
    before = _tree(invoice_repo)
    result = _dry_run(invoice_repo)
    assert result.run_dir is not None and not result.run_dir.is_relative_to(invoice_repo)
    assert (result.run_dir / "result.json").is_file()
    start = json.loads((result.run_dir / "trace.jsonl").read_text().splitlines()[0])
    assert start["event_type"] == "run.start" and "this dry run's folder is" in start["note"]
    assert _tree(invoice_repo) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a read-only folder anyway")
def test_a_dry_run_on_a_read_only_repo(invoice_repo: Path) -> None:
    for path in [invoice_repo, *invoice_repo.rglob("*")]:
        if path.is_dir():
            path.chmod(0o555)
    try:
        result = _dry_run(invoice_repo)
        assert result.run_dir is not None and not result.run_dir.is_relative_to(invoice_repo)
        assert not (invoice_repo / ".codur").exists()
    finally:
        for path in [invoice_repo, *invoice_repo.rglob("*")]:
            if path.is_dir():
                path.chmod(0o755)


def test_a_dry_run_on_a_writable_repo_keeps_its_folder_in_the_repo(invoice_repo: Path) -> None:
    result = _dry_run(invoice_repo)
    assert result.run_dir is not None and result.run_dir.parent == invoice_repo / ".codur" / "runs"
