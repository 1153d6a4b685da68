"""The same batch on a Ray instance the test starts (``--ray local``) and on the local pool."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codur.batch.results import JsonlResults
from codur.batch.runner import BatchSettings, run_batch
from codur.batch.tasks import read_tasks

pytest.importorskip("ray", reason="Ray is the optional extra codur[ray]")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _outcomes(tmp_path: Path, name: str, ray: str | None) -> tuple[dict, list[dict]]:
    tasks_file = tmp_path / "tasks.jsonl"
    if not tasks_file.exists():
        rows = [{"id": f"r{n}", "repo": str(EXAMPLES / "invoice"),
                 "task": "make the failing tests pass", "fixers": ["mutation"]} for n in range(4)]
        rows.append({"id": "r4", "repo": str(tmp_path / "missing"), "task": "make the failing tests pass"})
        tasks_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tasks, errors = read_tasks(tasks_file)
    assert errors == []
    store = JsonlResults(tmp_path / f"{name}.jsonl")
    events: list[dict] = []
    workdir = Path(f"{name}-work") if ray else tmp_path / f"{name}-work"  # relative: resolved once, here
    summary = run_batch(tasks, store, BatchSettings(workdir=workdir, workers=2, ray=ray), on_event=events.append)
    store.close()
    assert summary.complete and summary.ran == 5
    outcome = {r["id"]: (r["status"], r["solved"], r["fixer"], r["diff"]) for r in store.records()}
    return outcome, store.records()


@pytest.mark.slow  # 67-76 s on 2 shared cores: Ray's start, then 5 tasks twice
def test_a_local_ray_instance_gives_the_local_pools_results(tmp_path, monkeypatch):
    import ray

    monkeypatch.setenv("CODUR_REPAIR_WORKERS", "1")
    monkeypatch.chdir(tmp_path)  # the Ray run's work folder is given relative to it
    local, _ = _outcomes(tmp_path, "local", None)
    on_ray, records = _outcomes(tmp_path, "ray", "local")
    assert not ray.is_initialized()  # the batch shut its instance down
    assert on_ray == local
    assert [local[f"r{n}"][:2] for n in range(5)] == [("success", True)] * 4 + [("error", False)]
    assert all(Path(r["workcopy"]).parent == tmp_path / "ray-work" and Path(r["workcopy"]).is_dir()
               for r in records if r["workcopy"])
