"""Issue 52, item 2: codur batch writes only where the user said, never through a link.

A task folder cloned from elsewhere ("a benchmark") ships the links; the fake home beside it
holds what must survive: ``.bashrc`` and ``.ssh``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codur.batch.paths import LinkRefused
from codur.batch.results import JsonlResults
from codur.batch.tasks import BatchTask
from codur.batch.workcopy import prepare_workcopy

ROOT = Path(__file__).resolve().parents[2]


def _bench(tmp_path: Path, *tasks: dict) -> tuple[Path, Path]:
    """A fake home with ``.bashrc`` and ``.ssh/id_rsa``, and a cloned task folder inside it."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
    (home / ".bashrc").write_text("alias ll='ls -l'\n")
    bench = home / "bench"
    (bench / "prog").mkdir(parents=True)
    (bench / "prog" / "a.py").write_text("x = 1\n")
    rows = tasks or ({"id": "t1", "repo": "prog", "task": "fix", "fixers": ["mutation"]},)
    (bench / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return home, bench


def _home_state(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*"))
            if p.is_file() and "bench" not in p.parts}


def _batch(bench: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "codur._entry", "batch", "tasks.jsonl", *args], cwd=bench,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)


def test_a_results_file_that_links_to_the_shells_startup_file_is_refused(tmp_path: Path) -> None:
    home, bench = _bench(tmp_path)
    (bench / "results.jsonl").symlink_to("../.bashrc")
    before = _home_state(home)
    done = _batch(bench, "--out", "results.jsonl")
    assert done.returncode == 2, done.stderr
    assert "is a symbolic link" in done.stderr and "does not write through links" in done.stderr
    assert _home_state(home) == before
    assert not (bench / "results-work").exists()


def test_a_results_file_under_a_linked_folder_is_refused(tmp_path: Path) -> None:
    home, bench = _bench(tmp_path)
    (bench / "out").symlink_to(home / ".ssh")
    done = _batch(bench, "--out", "out/results.jsonl")
    assert done.returncode == 2, done.stderr
    assert f"{bench / 'out'} is a symbolic link" in done.stderr
    assert sorted(p.name for p in (home / ".ssh").iterdir()) == ["id_rsa"]


def test_a_working_folder_that_links_home_never_replaces_a_dot_folder_there(tmp_path: Path) -> None:
    home, bench = _bench(tmp_path, {"id": ".ssh", "repo": "prog", "task": "fix", "fixers": ["mutation"]})
    (bench / "results-work").symlink_to(home)
    before = _home_state(home)
    done = _batch(bench, "--out", "results.jsonl")
    assert done.returncode == 2, done.stderr
    assert "--workdir" in done.stderr and "is a symbolic link" in done.stderr
    assert _home_state(home) == before and (home / ".ssh" / "id_rsa").is_file()


def test_the_task_file_as_results_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    _, bench = _bench(tmp_path)
    before = (bench / "tasks.jsonl").read_bytes()
    done = _batch(bench, "--out", "./tasks.jsonl")
    assert done.returncode == 2, done.stderr
    assert "is the task file itself" in done.stderr
    assert (bench / "tasks.jsonl").read_bytes() == before


def test_a_shells_startup_file_as_results_is_refused(tmp_path: Path) -> None:
    home, bench = _bench(tmp_path)
    done = _batch(bench, "--out", "../.bashrc")
    assert done.returncode == 2, done.stderr
    assert "a file a shell reads at start" in done.stderr
    assert (home / ".bashrc").read_text() == "alias ll='ls -l'\n"


def test_a_link_put_in_place_of_the_results_file_after_it_was_opened_is_not_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    store = JsonlResults(tmp_path / "results.jsonl")
    (tmp_path / "results.jsonl").symlink_to(victim)  # between the check and the first write
    with pytest.raises(LinkRefused):
        store.append({"id": "t1"})
    with pytest.raises(LinkRefused):
        store.records()
    assert victim.read_text() == "keep\n"


def test_a_users_folder_in_a_copys_place_is_never_replaced_but_an_old_copy_is(tmp_path: Path) -> None:
    _, bench = _bench(tmp_path)
    (bench / "docs").mkdir()
    (bench / "docs" / "guide.md").write_text("mine\n")
    with pytest.raises(ValueError, match="is not a codur work copy"):
        prepare_workcopy(BatchTask(id="docs", repo=str(bench / "prog"), task="fix"), bench)  # --workdir .
    assert (bench / "docs" / "guide.md").read_text() == "mine\n"
    first = prepare_workcopy(BatchTask(id="t1", repo=str(bench / "prog"), task="fix"), bench / "work")
    (first / "a.py").write_text("x = 2\n")
    again = prepare_workcopy(BatchTask(id="t1", repo=str(bench / "prog"), task="fix"), bench / "work")
    assert again == first and (again / "a.py").read_text() == "x = 1\n"  # a copy of ours is replaced


def test_a_repo_holding_the_working_folder_is_copied_without_it(tmp_path: Path) -> None:
    _, bench = _bench(tmp_path)
    work = bench / "results-work"
    copy = prepare_workcopy(BatchTask(id="t1", repo=str(bench), task="fix"), work)
    assert sorted(p.name for p in copy.iterdir()) == [".codur", "prog", "tasks.jsonl"]
    again = prepare_workcopy(BatchTask(id="t2", repo=str(bench), task="fix"), work)  # t1's copy is not taken
    assert not (again / "results-work").exists()
    with pytest.raises(ValueError, match="its own working copy's folder"):
        prepare_workcopy(BatchTask(id="t1", repo=str(copy), task="fix"), work)
    assert (copy / "prog" / "a.py").is_file()


def test_task_text_in_the_results_runs_nothing_when_a_shell_sources_them(tmp_path: Path) -> None:
    text = 'fix it $(touch pwned) and `touch pwned2` ${HOME:+x}'
    store = JsonlResults(tmp_path / "results.jsonl")
    store.append({"id": "t1", "task": text})
    store.close()
    line = (tmp_path / "results.jsonl").read_text()
    assert "$" not in line and "`" not in line
    assert store.records() == [{"id": "t1", "task": text}]
    subprocess.run(["bash", "-c", ". ./results.jsonl"], cwd=tmp_path, capture_output=True, timeout=30)
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "pwned2").exists()
