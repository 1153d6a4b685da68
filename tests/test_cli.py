"""The `codur` command as a user runs it: help without a model, one-line errors on bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest


def codur(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codur.commands", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_help_answers_without_starting_a_model():
    t0 = time.monotonic()
    proc = codur("--help")
    assert proc.returncode == 0
    for word in ("run", "repair", "rlm", "tools"):
        assert word in proc.stdout
    assert time.monotonic() - t0 < 60
    assert "llama" not in proc.stderr.lower()


@pytest.mark.parametrize("args,message", [
    (["", "--repo", "."], "the task is empty"),
    (["fix the tests", "--repo", "/no/such/repo"], "repository path does not exist"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    proc = codur(*args)
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0]


def test_dry_run_on_example_prints_the_prompts_and_starts_no_model(invoice_repo: Path):
    proc = codur("make the failing tests pass", "--repo", str(invoice_repo), "--dry-run", "--max-turns", "1")
    assert proc.returncode == 0, proc.stderr
    assert "status: dry_run" in proc.stdout and "files changed: (none)" in proc.stdout
    assert "▶ execute" in proc.stdout
    assert "system (coder):" in proc.stdout and "prompt (coder):" in proc.stdout
    assert "make the failing tests pass" in proc.stdout.split("prompt (coder):")[1]  # the turn prompt, whole
    trace = (next((invoice_repo / ".codur" / "runs").iterdir()) / "trace.jsonl").read_text()
    assert '"model.start"' not in trace and '"model.call"' not in trace  # the embedded model never started
    assert (invoice_repo / ".codur" / "runs").is_dir()
    # piped: no colour, no spinner frames, lines not wrapped at 80 columns
    assert "\x1b[" not in proc.stdout and not set("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏") & set(proc.stdout)
    assert f"trace: {invoice_repo}" in proc.stdout


HEAVY = ("langgraph", "langchain_core", "langchain_openai", "pydantic_settings", "codur.engine", "codur.graph")


def test_help_imports_nothing_heavy():
    probe = ("import sys\nfrom codur.commands.app import app\n"
             "try:\n    app(['--help'], prog_name='codur', standalone_mode=False)\nexcept SystemExit:\n    pass\n"
             "print('MODULES', ' '.join(sorted(sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "repair" in proc.stdout and "graph" in proc.stdout  # the commands are listed all the same
    modules = set(proc.stdout.split("MODULES ", 1)[1].split())
    assert "typer" in modules
    assert not {m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY)}


def test_version():
    proc = codur("--version")
    assert proc.returncode == 0 and proc.stdout == "codur 0.1.0\n"


def test_graph_prints_mermaid():
    proc = codur("graph")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.lstrip().startswith(("---", "graph TD", "%%"))
    for node in ("initialize", "observe", "plan", "patch", "delegate", "execute", "verify", "review", "done"):
        assert node in proc.stdout
    assert "-->" in proc.stdout


@pytest.mark.parametrize("word,near", [("confg", "config"), ("repiar", "repair"), ("grahp", "graph"), ("zzz", None)])
def test_a_single_word_that_is_no_command_is_refused(word, near, tmp_path: Path):
    proc = codur(word, cwd=tmp_path)
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"unknown command '{word}'" in lines[0] and f'codur run "{word}"' in lines[0]
    assert (f"did you mean {near}" in lines[0]) if near else "did you mean" not in lines[0]
    assert not (tmp_path / ".codur").exists() and proc.stdout == ""


def test_a_quoted_single_word_task_still_runs(invoice_repo: Path):
    proc = codur("run", "runs", "--repo", str(invoice_repo), "--dry-run", "--max-turns", "1", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.lstrip().startswith("status: dry_run")


def test_json_on_stdout_only(invoice_repo: Path):
    proc = codur("make the failing tests pass", "--repo", str(invoice_repo), "--dry-run", "--max-turns", "1",
                 "--json")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    records = [json.loads(line) for line in lines]  # every line parses, from the first byte to the last
    assert proc.stdout == "".join(line + "\n" for line in lines)
    assert [r["event_type"] for r in records][-1] == "run.result"
    assert records[0]["event_type"] == "engine.state" or records[0]["event_type"] == "run.start"
    assert all(r["run_id"] == records[-1]["run_id"] and isinstance(r["ts"], float) for r in records)
    assert records[-1]["status"] == "dry_run"
    prompt = next(r for r in records if r["event_type"] == "agent.prompt")
    assert "make the failing tests pass" in prompt["prompt"] and prompt["system"]


def test_lazy_subcommands_run_when_invoked():
    proc = codur("tools", "--task-type", "code_fix")
    assert proc.returncode == 0, proc.stderr
    assert "replace_in_file" in proc.stdout and "run_pytest" in proc.stdout
    proc = codur("repair", "--help")
    assert proc.returncode == 0 and "--dry-run" in proc.stdout


def test_on_a_terminal_a_spinner_and_colour(invoice_repo: Path):
    """Under a pseudo-terminal: spinner frames with the elapsed time, colour, then the spinner cleared."""
    import os
    import pty

    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    proc = subprocess.Popen([sys.executable, "-m", "codur.commands", "make the failing tests pass", "--repo",
                             str(invoice_repo), "--dry-run", "--max-turns", "1"],
                            stdout=follower, stderr=subprocess.PIPE, env={**env, "TERM": "xterm-256color",
                                                                          "COLUMNS": "120"})
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(leader)
    screen = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 0
    assert "\x1b[" in screen  # colour
    assert set("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏") & set(screen)  # spinner frames
    assert re.search(r"(observe|plan|execute|verify) \d+\.\ds", screen)  # what runs now, for how long
    assert "status: dry_run" in screen
