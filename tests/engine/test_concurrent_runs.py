"""Issue 12, item 6: twenty runs at once through the Python API, each on its own repo with a
scripted model, keep their results, diffs and traces apart."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from codur import CodurConfig, RunRequest, RunResult, RunStatus, run
from codur.llm import ScriptedChatModel, StaticModelProvider

RUNS = 20


def _reply(i: int) -> str:
    """One tool call writing repo i's own greet.py, as fenced JSON (the local model's way)."""
    call = {"name": "write_file", "arguments": {"path": "greet.py", "content": f"def hello():\n    return 'hi {i}'\n"}}
    return "```json\n" + json.dumps([call]) + "\n```"


def _run(repo: Path, i: int) -> RunResult:
    models = {"actor": ScriptedChatModel(replies=[_reply(i), f"Wrote greet.py for repo {i}."])}
    config = CodurConfig(critic=False, repair=False, retry_base_delay_s=0, max_turns=1)
    task = f"add a module greet.py with a function hello() returning 'hi {i}'"
    return run(RunRequest(task=task, repo=repo), models=StaticModelProvider(models), config=config)


def test_twenty_concurrent_runs_keep_their_results_and_traces_apart(tmp_path: Path) -> None:
    repos = []
    for i in range(RUNS):
        repo = tmp_path / f"repo{i}"
        repo.mkdir()
        (repo / "app.py").write_text(f"def main():\n    return {i}\n")
        repos.append(repo)
    start = time.monotonic()
    with ThreadPoolExecutor(RUNS) as pool:
        results = list(pool.map(_run, repos, range(RUNS)))
    elapsed = time.monotonic() - start
    assert len({r.run_id for r in results}) == RUNS
    for i, (repo, result) in enumerate(zip(repos, results, strict=True)):
        assert result.status is RunStatus.SUCCESS, (i, result.status, result.reason)
        assert result.files_changed == ["greet.py"]
        assert f"+    return 'hi {i}'" in result.diff and "app.py" not in result.diff
        assert [ln for ln in result.diff.splitlines() if ln.startswith("+    return")] == [f"+    return 'hi {i}'"]
        assert (repo / "greet.py").read_text() == f"def hello():\n    return 'hi {i}'\n"
        assert (repo / "app.py").read_text() == f"def main():\n    return {i}\n"
        assert result.run_dir == repo / ".codur" / "runs" / result.run_id
        assert json.loads((result.run_dir / "result.json").read_text())["run_id"] == result.run_id
        events = [json.loads(line) for line in (result.run_dir / "trace.jsonl").read_text().splitlines()]
        assert events[0]["event_type"] == "run.start" and events[-1]["event_type"] == "run.end"
        assert {e["run_id"] for e in events if "run_id" in e} == {result.run_id}
        assert events[0]["repo"] == str(repo) and events[0]["task"].endswith(f"'hi {i}'")
        assert [d.name for d in (repo / ".codur" / "runs").iterdir()] == [result.run_id]
    assert elapsed < 30, f"{RUNS} runs took {elapsed:.1f}s"
