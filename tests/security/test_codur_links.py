"""Issue 36, item 2: a repo that ships ``.codur`` as a link, or links inside it, never leads
codur to write outside the repo (codur.core.codur_folder, the lock's O_NOFOLLOW)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codur.core.codur_folder import LinkedCodurFolder, check_codur_tree, codur_path
from codur.engine import EngineComponents, LocalEngine, MockProvider, RunRequest
from codur.engine.lock import FileLock, RepoLock
from codur.memory import SqliteSessionStore
from codur.tools.run_folder import ignore_in_git


def _repo(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(a repo with one module, a victim file beside it, a victim folder beside it)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    victim_dir = tmp_path / "victimdir"
    victim_dir.mkdir()
    return repo, victim, victim_dir


def test_a_lock_file_linked_out_of_the_repo_is_not_written_through(tmp_path: Path) -> None:
    repo, victim, _ = _repo(tmp_path)
    (repo / ".codur").mkdir()
    (repo / ".codur" / "run.lock").symlink_to("../../victim.txt")
    with pytest.raises(LinkedCodurFolder, match=r"\.codur/run\.lock is a symbolic link \(to \.\./\.\./victim\.txt\)"):
        RepoLock.acquire(repo, "r1")
    with pytest.raises(OSError):  # the lock itself never follows a link, whoever asks
        FileLock.acquire(repo / ".codur" / "run.lock", run_id="r1")
    assert victim.read_text() == "precious\n"


def test_a_linked_codur_folder_is_refused_by_every_writer(tmp_path: Path) -> None:
    repo, _, victim_dir = _repo(tmp_path)
    (repo / ".codur").symlink_to(victim_dir)
    for write in (lambda: RepoLock.acquire(repo, "r1"), lambda: ignore_in_git(repo),
                  lambda: SqliteSessionStore.for_repo(repo), lambda: codur_path(repo, "checkpoints.sqlite"),
                  lambda: check_codur_tree(repo)):
        with pytest.raises(LinkedCodurFolder, match=r"^\.codur is a symbolic link .*remove the link"):
            write()
    assert list(victim_dir.iterdir()) == []
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_a_link_deep_in_codur_is_found_before_a_run_writes(tmp_path: Path) -> None:
    repo, victim, _ = _repo(tmp_path)
    (repo / ".codur" / "runs").mkdir(parents=True)
    (repo / ".codur" / "checkpoints.sqlite-wal").symlink_to(victim)
    with pytest.raises(LinkedCodurFolder, match=r"checkpoints\.sqlite-wal is a symbolic link"):
        check_codur_tree(repo)


def test_a_run_on_a_repo_with_a_linked_codur_ends_with_a_clear_error_and_writes_nothing(tmp_path: Path) -> None:
    repo, _, victim_dir = _repo(tmp_path)
    (repo / ".codur").symlink_to(victim_dir)
    result = LocalEngine().run(RunRequest(input="where is add defined?", repo=repo),
                               EngineComponents(models=MockProvider(["add is in calc.py"])))
    assert result.status.value == "error"
    assert result.reason.startswith("unsafe_codur_folder: .codur is a symbolic link")
    assert list(victim_dir.iterdir()) == []


def test_a_real_codur_folder_is_created_and_used(tmp_path: Path) -> None:
    repo, _, _ = _repo(tmp_path)
    lock = RepoLock.acquire(repo, "r1")
    lock.release()
    ignore_in_git(repo)
    assert (repo / ".codur" / ".gitignore").read_text() == "*\n" and (repo / ".codur" / "run.lock").is_file()
    assert codur_path(repo, "runs", "x", folder=True).is_dir()
    check_codur_tree(repo)
