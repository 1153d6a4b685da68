"""ToolExecutor and ToolContext: confinement, secrets, limits, policy, timeouts, readable errors.

Every refused call must say why AND leave the disk exactly as it was.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from codur.tools import REGISTRY, ToolContext, ToolError, ToolExecutor, ToolRegistry, ToolSettings, context, tool
from codur.tools.executor import cap_output
from codur.tools.reading import MAX_READ_BYTES

WRITES = [
    ("write_file", {"path": "{p}", "content": "x"}),
    ("replace_in_file", {"path": "{p}", "old": "a", "new": "b"}),
    ("delete_file", {"path": "{p}"}),
    ("move_file", {"src": "calc.py", "dst": "{p}"}),
]


def _fill(args: dict, path: str) -> dict:
    return {k: v.replace("{p}", path) if isinstance(v, str) else v for k, v in args.items()}


@pytest.mark.parametrize(
    "path", ["../outside.txt", "tests/../../outside.txt", "{abs}", "link_out", "linkdir/outside.txt", "~/x"]
)
@pytest.mark.parametrize("name,args", [("read_file", {"path": "{p}"}), ("list_files", {"directory": "{p}"}), *WRITES])
def test_paths_outside_the_repo_are_refused(snapshot, ex: ToolExecutor, repo: Path, outside: Path, path: str,
                                            name: str, args: dict) -> None:
    (repo / "link_out").symlink_to(outside)
    (repo / "linkdir").symlink_to(outside.parent)
    path = path.replace("{abs}", str(outside))
    before, outside_before = snapshot(repo), outside.read_bytes()
    result = ex.execute(name, _fill(args, path))
    assert not result.ok
    assert "escapes the repository" in result.output or "absolute paths are refused" in result.output
    assert snapshot(repo) == before and outside.read_bytes() == outside_before


def test_symlinks_inside_the_repo_are_followed_for_reading_only(snapshot, ex: ToolExecutor, repo: Path) -> None:
    (repo / "alias.py").symlink_to(repo / "calc.py")
    assert "def add" in ex.execute("read_file", {"path": "alias.py"}).output
    before = snapshot(repo)
    for name, args in [("delete_file", {"path": "alias.py"}), ("move_file", {"src": "alias.py", "dst": "b.py"})]:
        result = ex.execute(name, args)
        assert not result.ok and "symbolic link" in result.output
    assert snapshot(repo) == before


@pytest.mark.parametrize("setup,path,message", [
    (lambda r: (r / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0IHDR"), "img.png", "binary file"),
    (lambda r: (r / "big.txt").write_text("x" * (MAX_READ_BYTES + 1)), "big.txt", "over the 1000000-byte limit"),
    (lambda r: None, "missing.py", "no such file or directory: missing.py"),
    (lambda r: (r / "latin.txt").write_bytes("café".encode("latin-1")), "latin.txt", "not UTF-8"),
    (lambda r: (r / ".env").write_text("API_KEY=sk-123\n"), ".env", "may hold secrets"),
    (lambda r: (r / "id_rsa").write_text("-----BEGIN KEY-----\n"), "id_rsa", "may hold secrets"),
    (lambda r: None, "tests", "is a directory"),
])
def test_unreadable_files_get_a_clear_error(
    snapshot, ex: ToolExecutor, repo: Path, setup, path: str, message: str
) -> None:
    setup(repo)
    before = snapshot(repo)
    for name, args in [("read_file", {"path": path}), ("replace_in_file", {"path": path, "old": "x", "new": "y"})]:
        result = ex.execute(name, args)
        assert not result.ok and message in result.output, result.output
    assert snapshot(repo) == before


def test_secrets_are_readable_when_configured(repo: Path) -> None:
    (repo / ".env").write_text("API_KEY=sk-123\n")
    secrets = ToolExecutor(repo, ToolSettings(allow_secrets=True))
    assert "sk-123" in secrets.execute("read_file", {"path": ".env"}).output
    assert ".env" in secrets.execute("list_files", {}).output
    assert ".env" not in ToolExecutor(repo).execute("list_files", {}).output


def test_writes_into_git_codur_and_secrets_are_refused(snapshot, ex: ToolExecutor, repo: Path) -> None:
    (repo / ".git").mkdir()
    before = snapshot(repo)
    for path in [".git/config", ".codur/x", ".env", "keys/server.pem"]:
        result = ex.execute("write_file", {"path": path, "content": "x"})
        assert not result.ok, path
    assert snapshot(repo) == before and not (repo / ".git" / "config").exists()


def test_read_only_policy_refuses_every_change(snapshot, repo: Path) -> None:
    ex = ToolExecutor(repo, ToolSettings(policy="read_only"))
    before = snapshot(repo)
    rename_add = "--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-def add(a, b):\n+def plus(a, b):\n"
    for name, args in WRITES + [("apply_patch", {"patch": rename_add})]:
        result = ex.execute(name, _fill(args, "new.py"))
        assert not result.ok and "read-only" in result.output
    assert ex.execute("read_file", {"path": "calc.py"}).ok
    assert snapshot(repo) == before


def test_confirm_writes_asks_before_each_change(snapshot, repo: Path) -> None:
    asked: list[str] = []
    answers = iter([False, True])
    ex = ToolExecutor(repo, ToolSettings(policy="confirm_writes"),
                      confirm=lambda name, args: asked.append(name) or next(answers))
    before = snapshot(repo)
    refused = ex.execute("write_file", {"path": "new.py", "content": "x = 1\n"})
    assert not refused.ok and "not confirmed" in refused.output and snapshot(repo) == before
    assert ex.execute("write_file", {"path": "new.py", "content": "x = 1\n"}).ok
    assert (repo / "new.py").read_text() == "x = 1\n" and asked == ["write_file", "write_file"]
    assert ex.execute("read_file", {"path": "calc.py"}).ok and len(asked) == 2
    no_callback = ToolExecutor(repo, ToolSettings(policy="confirm_writes")).execute("delete_file", {"path": "new.py"})
    assert not no_callback.ok and (repo / "new.py").exists()


def test_unknown_tool_disallowed_tool_and_bad_arguments(snapshot, ex: ToolExecutor, repo: Path) -> None:
    before = snapshot(repo)
    unknown = ex.execute("rm_rf", {"path": "."})
    assert not unknown.ok and "unknown tool 'rm_rf'" in unknown.output and "read_file" in unknown.output
    limited = ex.with_allowed({"read_file"})
    hidden = limited.execute("write_file", {"path": "x.py", "content": ""})
    assert not hidden.ok and "available: read_file" in hidden.output
    bad = ex.execute("read_file", {"path": "calc.py", "start_line": "first"})
    assert not bad.ok and "start_line" in bad.output and "Expected read_file(path: str" in bad.output
    extra = ex.execute("read_file", {"file_path": "calc.py"})
    assert not extra.ok and "path: Field required" in extra.output and "file_path" in extra.output
    assert snapshot(repo) == before


def test_exceptions_become_error_results_and_calls_are_timed(repo: Path) -> None:
    reg = ToolRegistry()

    @tool(scenarios=["code_fix"], registry=reg)
    def boom(ctx: ToolContext) -> str:
        """Fail."""
        raise KeyError("nope")

    @tool(scenarios=["code_fix"], registry=reg)
    def slow(ctx: ToolContext, seconds: float) -> str:
        """Sleep."""
        time.sleep(seconds)
        return str(ctx.root)

    events: list[dict] = []
    ex = ToolExecutor(repo, registry=reg, on_event=events.append)
    result = ex.execute("boom", {}, call_id="c1")
    assert not result.ok and result.output == "Error: boom failed: KeyError: 'nope'"
    message = result.to_message()
    assert message.status == "error" and message.tool_call_id == "c1" and message.name == "boom"
    timed = ex.execute("slow", {"seconds": 0.2})
    assert timed.ok and timed.output == str(repo.resolve()) and timed.duration_s >= 0.2
    assert [e["tool"] for e in events] == ["boom", "slow"] and events[1]["duration_s"] >= 0.2


def test_output_is_capped_with_a_visible_note(repo: Path) -> None:
    (repo / "long.txt").write_text("".join(f"line {i}\n" for i in range(5000)))
    result = ToolExecutor(repo, ToolSettings(output_chars=1000)).execute("read_file", {"path": "long.txt"})
    assert result.ok and len(result.output) < 1100
    assert "…[truncated" in result.output and "line 4999" in result.output and "long.txt (lines 1-5000" in result.output
    assert cap_output("short", 10) == "short"


def test_context_runs_with_timeout_kills_the_process_group_and_scrubs_env(repo: Path, tmp_path: Path,
                                                                         process_gone, monkeypatch) -> None:
    monkeypatch.setenv("CODUR_SANDBOX", "off")  # host pids (no PID namespace) and a marker outside the repo
    ctx = ToolExecutor(repo).ctx
    marker = tmp_path / "grandchild.pid"
    script = (f"import subprocess, sys, time\n"
              f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
              f"open({str(marker)!r}, 'w').write(str(p.pid))\ntime.sleep(60)\n")
    t0 = time.monotonic()
    res = ctx.run(["python3", "-c", script], timeout_s=1.5)
    assert res.timed_out and res.exit_code is None and time.monotonic() - t0 < 6
    assert process_gone(int(marker.read_text()))
    os.environ["CODUR_TEST_API_KEY"] = "sk-secret"
    try:
        env = ctx.run(["python3", "-c", "import os; print(sorted(os.environ))"]).stdout
    finally:
        del os.environ["CODUR_TEST_API_KEY"]
    assert "CODUR_TEST_API_KEY" not in env and "PATH" in env
    with pytest.raises(ToolError, match="command not found"):
        ctx.run(["no-such-command-xyz"])


def test_run_keeps_head_and_tail_of_endless_output(repo: Path) -> None:
    ctx = ToolExecutor(repo).ctx
    res = ctx.run(["python3", "-c", "import sys\nfor i in range(400000): sys.stdout.write(f'{i}\\n')"], timeout_s=30)
    assert res.exit_code == 0 and res.stdout.startswith("0\n1\n") and res.stdout.endswith("399999\n")
    assert "bytes of output dropped" in res.stdout and len(res.stdout) < 450_000


def test_write_many_is_all_or_nothing(snapshot, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = ToolExecutor(repo).ctx
    before = snapshot(repo)
    with pytest.raises(ToolError, match="escapes"):
        ctx.write_many({"calc.py": "changed", "../evil.py": "x"})
    with pytest.raises(ToolError, match="no such file"):
        ctx.write_many({"calc.py": "changed", "gone.py": None})
    assert snapshot(repo) == before
    real, calls = context.atomic_write_bytes, []

    def disk_full_on_second_write(p: Path, data: bytes) -> None:
        calls.append(p)
        if len(calls) == 2:
            raise OSError("disk full")
        real(p, data)

    monkeypatch.setattr(context, "atomic_write_bytes", disk_full_on_second_write)
    with pytest.raises(OSError, match="disk full"):
        ctx.write_many({"calc.py": "changed", "README.md": "changed"})
    assert snapshot(repo) == before and len(calls) == 3  # the first write was put back


def test_journal_diff_covers_every_change(ex: ToolExecutor, repo: Path) -> None:
    ex.execute("write_file", {"path": "pkg/new.py", "content": "X = 1\n"})
    ex.execute("replace_in_file", {"path": "calc.py", "old": "a - b", "new": "a + b"})
    ex.execute("move_file", {"src": "README.md", "dst": "docs/README.md"})
    diff = ex.journal.diff()
    assert "+++ b/pkg/new.py" in diff and "-    return a - b" in diff and "+++ b/docs/README.md" in diff
    assert "--- a/README.md\n+++ /dev/null" in diff
    assert sorted(ex.journal.changed_files) == ["README.md", "calc.py", "docs/README.md", "pkg/new.py"]


def test_registry_is_the_codur_registry_by_default(ex: ToolExecutor) -> None:
    assert ex.registry is REGISTRY
