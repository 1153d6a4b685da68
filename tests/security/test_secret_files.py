"""Issue 52, Deliver 4: secrets stay home, by one list with a source.

The code codur runs reads every credential file of the repo as empty, at any depth, found by
name, by content (detect-secrets' detectors) or through a link; ``git_status`` and ``git_diff``
see the same view (a masked, committed ``.env`` is not shown as removed lines); and the
sandbox's ``.git/config`` holds no credential, so no encoding of it (zlib, base64) does.
"""

from __future__ import annotations

import base64
import subprocess
import tempfile
import zlib
from pathlib import Path

import pytest

from codur.sandbox.bwrap import bwrap_problem
from codur.tools import ToolExecutor
from codur.tools.executor import TestPolicy
from codur.tools.visibility import is_secret
from codur.validate.session import RepairSession

pytestmark = pytest.mark.skipif(bwrap_problem() is not None, reason=f"no bubblewrap here: {bwrap_problem()}")
CANARY = "hunter2-canary-52a"
KINDS = ("credentials.json", "credentials-prod.json", "secrets.yaml", "config/secrets.yml", ".pgpass",
         "config/database.yml", "infra/terraform.tfvars", ".npmrc", ".pypirc", "deploy/.docker/config.json",
         "certs/server.pem", "certs/tls.key", "keys/id_ed25519", "a/b/c/d/.env")
PEEK = ("import base64, sys, zlib\n"
        "from pathlib import Path\n"
        "for name in sys.argv[1:]:\n"
        "    data = Path(name).read_bytes()\n"
        "    print(name, len(data), base64.b64encode(zlib.compress(data)).decode())\n")


def _peek(repo: Path, *names: str) -> dict[str, int]:
    (repo / "peek.py").write_text(PEEK)
    out = ToolExecutor(repo).execute("run_python_file", {"path": "peek.py", "args": list(names)}).output
    sizes = {}
    for line in out.splitlines():
        parts = line.split(" ")
        if len(parts) == 3 and parts[0] in names:
            sizes[parts[0]] = int(parts[1])
            assert CANARY.encode() not in zlib.decompress(base64.b64decode(parts[2])), line
    assert set(sizes) == set(names), out
    return sizes


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                   check=True, capture_output=True)


def test_each_credential_file_kind_reads_as_empty_at_any_depth(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for rel in KINDS:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(f"password: {CANARY}\n")
    (repo / "notes.md").write_text("plain\n")
    sizes = _peek(repo, *KINDS, "notes.md")
    assert sizes == {**dict.fromkeys(KINDS, 0), "notes.md": 6}


def test_a_config_file_holding_a_token_reads_as_empty_whatever_its_name(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "deploy" / "prod").mkdir(parents=True)
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    (repo / "deploy" / "prod" / "settings.ini").write_text(f"[github]\ntoken = {token}\n# {CANARY}\n")
    (repo / "fixture.py").write_text(f"FAKE = {token!r}  # {CANARY}\n")  # code is not masked: the repair needs it
    sizes = _peek(repo, "deploy/prod/settings.ini")
    assert sizes == {"deploy/prod/settings.ini": 0}
    assert is_secret("keys/id_rsa") and not is_secret("src/id_map.py")


def test_a_link_to_a_credential_file_reads_as_empty(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "settings").mkdir(parents=True)
    (repo / "settings" / "live.txt").write_text(f"PASSWORD={CANARY}\n")
    (repo / ".env").symlink_to("settings/live.txt")  # the link's name is the secret one
    (repo / "creds").mkdir()
    (repo / "creds" / ".pgpass").write_text(f"db:5432:app:me:{CANARY}\n")
    (repo / "view.txt").symlink_to("creds/.pgpass")  # the target's name is
    sizes = _peek(repo, ".env", "view.txt", "settings/live.txt")
    assert sizes == {".env": 0, "view.txt": 0, "settings/live.txt": 0}
    with pytest.raises(Exception, match="may hold secrets"):
        ToolExecutor(repo).ctx.read_text(".env")


def test_git_tools_do_not_show_a_masked_committed_env(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".env").write_text(f"API_TOKEN={CANARY}\n")
    (repo / "app.py").write_text("X = 1\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "init")
    (repo / "app.py").write_text("X = 2\n")
    ex = ToolExecutor(repo)
    diff = ex.execute("git_diff", {}).output
    status = ex.execute("git_status", {}).output
    assert CANARY not in diff and "API_TOKEN" not in diff and "+X = 2" in diff, diff
    assert ".env" not in status and "app.py" in status, status


def test_the_sandbox_gets_a_git_config_without_the_remote_token(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text("X = 1\n")
    _git(repo, "init", "-q")
    _git(repo, "remote", "add", "origin", f"https://deploy:{CANARY}@git.example.com/team/app.git")
    _git(repo, "config", "http.https://git.example.com/.extraheader", f"AUTHORIZATION: basic {CANARY}")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "init")
    sizes = _peek(repo, ".git/config")
    assert sizes[".git/config"] > 0  # a config, only without the credentials
    status = ToolExecutor(repo).execute("git_status", {}).output
    assert "peek.py" in status, status  # git still works on the clean copy
    assert CANARY in (repo / ".git" / "config").read_text()  # the real file is untouched


def test_repairs_worker_copies_hold_the_credential_files_empty(tmp_path: Path) -> None:
    """The candidate patches' tests run in copies of the repo: those hold no credential either."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (repo / "tests" / "test_calc.py").write_text("from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n")
    (repo / ".env").write_text(f"API_TOKEN={CANARY}\n")
    (repo / "config").mkdir()
    (repo / "config" / "secrets.yaml").write_text(f"token: {CANARY}\n")
    (repo / "local.env.txt").symlink_to(".env")
    with RepairSession(repo, workers=1) as session:
        copy = session.copies[0].root
        assert [(copy / n).read_text() for n in (".env", "config/secrets.yaml", "local.env.txt")] == ["", "", ""]
        assert (copy / "calc.py").read_text().startswith("def add")
    with RepairSession(repo, workers=1, policy=TestPolicy(allow_secrets=True)) as session:
        assert CANARY in (session.copies[0].root / ".env").read_text()
    assert CANARY in (repo / ".env").read_text()


def test_a_linked_worktree_sees_its_main_repos_git_config_cleaned_and_its_env_empty() -> None:
    """A linked worktree's ``.git`` is a file naming a folder of the main repository, whose
    ``config`` holds the remotes, and the user's ``.env`` lies in the main checkout: both outside
    the worktree, but in the sandbox's read-only filesystem when they lie outside /tmp and the
    home (here /var/tmp), so they are seen cleaned and empty too."""
    with tempfile.TemporaryDirectory(dir="/var/tmp") as place:
        main, tree = Path(place) / "main", Path(place) / "tree"
        main.mkdir()
        (main / "app.py").write_text("X = 1\n")
        (main / ".env").write_text(f"API_TOKEN={CANARY}\n")  # the user's, in the main checkout only
        (main / ".gitignore").write_text(".env\n")
        _git(main, "init", "-q")
        _git(main, "remote", "add", "origin", f"https://deploy:{CANARY}@git.example.com/team/app.git")
        _git(main, "add", "-A")
        _git(main, "commit", "-qm", "init")
        _git(main, "worktree", "add", "-q", str(tree))
        config, env = str(main / ".git" / "config"), str(main / ".env")
        assert _peek(tree, config, env) == {config: _peek(tree, config)[config], env: 0}
        assert _peek(tree, config)[config] > 0  # the config, without the credentials
        status = ToolExecutor(tree).execute("git_status", {}).output
        assert "peek.py" in status, status  # git works in the worktree on the clean copy
        assert CANARY in Path(config).read_text()


def test_a_folder_of_a_monorepo_sees_the_enclosing_env_empty_and_git_config_cleaned() -> None:
    """``--repo monorepo/backend``: the folder has no ``.git`` of its own; the enclosing
    repository's ``.git/config`` and the ``.env`` at its top lie outside the folder, in the
    sandbox's read-only filesystem (here /var/tmp)."""
    with tempfile.TemporaryDirectory(dir="/var/tmp") as place:
        mono = Path(place) / "mono"
        (mono / "backend").mkdir(parents=True)
        (mono / "backend" / "app.py").write_text("X = 1\n")
        (mono / ".env").write_text(f"API_TOKEN={CANARY}\n")
        (mono / ".gitignore").write_text(".env\n")
        _git(mono, "init", "-q")
        _git(mono, "remote", "add", "origin", f"https://deploy:{CANARY}@git.example.com/team/mono.git")
        config, env = str(mono / ".git" / "config"), str(mono / ".env")
        sizes = _peek(mono / "backend", config, env)
        assert sizes[env] == 0 and sizes[config] > 0


def test_the_git_folders_of_a_submodule_are_its_own_and_its_superprojects(tmp_path: Path) -> None:
    from codur.tools.masking import git_dirs

    own = tmp_path / "super" / ".git" / "modules" / "lib"
    own.mkdir(parents=True)
    (tmp_path / "super" / "lib").mkdir()
    (tmp_path / "super" / "lib" / ".git").write_text("gitdir: ../.git/modules/lib\n")
    assert git_dirs(tmp_path / "super" / "lib") == [own.resolve(), (tmp_path / "super" / ".git").resolve()]
    (tmp_path / "super" / "lib" / "src").mkdir()
    assert git_dirs(tmp_path / "super" / "lib" / "src") == git_dirs(tmp_path / "super" / "lib")  # the enclosing repo's
    assert git_dirs(tmp_path / "alone") == []
