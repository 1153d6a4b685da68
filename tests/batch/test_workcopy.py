import subprocess
from pathlib import Path

import pytest

from codur.batch.tasks import BatchTask
from codur.batch.workcopy import prepare_workcopy

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def _origin(path):
    path.mkdir()
    _git("init", "-q", cwd=path)
    (path / "a.py").write_text("x = 1\n")
    _git("add", ".", cwd=path)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one", cwd=path)
    return path


def test_folder_repo_is_copied_and_the_original_untouched(tmp_path):
    src = next(p for p in EXAMPLES.iterdir() if p.is_dir())
    task = BatchTask(id="t1", repo=str(src), task="fix")
    copy = prepare_workcopy(task, tmp_path)
    assert copy == tmp_path / "t1" and copy != src
    (copy / "extra.txt").write_text("x")
    assert not (src / "extra.txt").exists()
    assert prepare_workcopy(task, tmp_path, in_place=True) == src.resolve()


def test_git_url_is_cloned_at_the_commit(tmp_path):
    origin = _origin(tmp_path / "origin")
    first = _git("rev-parse", "HEAD", cwd=origin)
    (origin / "a.py").write_text("x = 2\n")
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "two", cwd=origin)
    task = BatchTask(id="g", repo=f"file://{origin}", task="fix", commit=first)
    copy = prepare_workcopy(task, tmp_path / "copies")
    assert (copy / "a.py").read_text() == "x = 1\n"


def test_missing_folder_and_bad_commit_are_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        prepare_workcopy(BatchTask(id="m", repo=str(tmp_path / "nope"), task="t"), tmp_path)
    origin = _origin(tmp_path / "o")
    bad = BatchTask(id="b", repo=f"file://{origin}", task="t", commit="0" * 40)
    with pytest.raises(RuntimeError, match="checkout failed"):
        prepare_workcopy(bad, tmp_path / "c")


@pytest.mark.parametrize("fields", [
    {"repo": "--upload-pack=touch /tmp/pwned;x.git"},  # a URL read as git's option: runs the command
    {"repo": "file:///srv/app.git", "commit": "--orphan=x"},
    {"repo": "file:///srv/app.git", "commit": "main\nx"},
])
def test_a_repo_or_commit_that_git_would_read_as_an_option_is_refused(fields):
    with pytest.raises(ValueError, match="would reach git as an option"):
        BatchTask(id="x", task="fix", **fields)


def test_a_clone_takes_the_url_after_the_options_end(tmp_path, monkeypatch):
    from codur.batch import workcopy

    seen = []
    def git(args, task, cwd=None):  # records the call, makes the folder a clone would
        seen.append(args)
        if args[0] == "clone":
            Path(args[-1]).mkdir()

    monkeypatch.setattr(workcopy, "_git", git)
    task = BatchTask(id="g", repo="https://git.example/app.git", task="fix")
    workcopy.prepare_workcopy(task, tmp_path)
    assert seen[0][:3] == ["clone", "--quiet", "--"] and seen[0][3] == task.repo
