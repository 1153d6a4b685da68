"""Issue 12, item 5: no child of the RLM worker outlives the sandbox; RLIMIT_NPROC is set."""

from __future__ import annotations

import time
from pathlib import Path

from codur.rlm.sandbox import Sandbox, SandboxLimits

SPAWN = (
    "import subprocess, sys\n"
    "argv = [sys.executable, '-c', 'import time; time.sleep(60)', 'codur-rlm-kid']\n"
    "kids = [subprocess.Popen(argv) for _ in range(3)]\n"
    "print(' '.join(str(k.pid) for k in kids))\n"
)


def kids(count: int = 3, within_s: float = 3.0) -> list[int]:
    """The pids, as seen from here (the worker may have its own PID namespace), of SPAWN's
    children, once ``count`` of them show (or ``within_s`` seconds passed)."""
    deadline = time.monotonic() + within_s
    while True:
        found = []
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and b"codur-rlm-kid" in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def wait_gone(pids: list[int], within_s: float = 3.0) -> list[int]:
    """The pids still running after ``within_s`` seconds."""
    deadline = time.monotonic() + within_s
    while (left := [p for p in pids if alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def test_children_die_when_the_sandbox_closes():
    with Sandbox("x", limits=SandboxLimits(timeout_s=10)) as sb:
        assert len(sb.execute(SPAWN).stdout.split()) == 3
        pids = kids()
        assert len(pids) == 3 and all(alive(p) for p in pids)
    assert wait_gone(pids) == []


def test_children_die_even_when_the_worker_exited_first():
    sb = Sandbox("x", limits=SandboxLimits(timeout_s=10)).start()
    try:
        assert len(sb.execute(SPAWN).stdout.split()) == 3
        pids = kids()
        result = sb.execute("import os; os._exit(3)")  # the worker dies; its children do not by themselves
        assert "WorkerDied" in (result.error or "")
        assert wait_gone(pids) == []
    finally:
        sb.close()


def test_rlimit_nproc_is_set_in_the_worker():
    with Sandbox("x", limits=SandboxLimits(timeout_s=10, max_processes=16)) as sb:
        out = sb.execute("import resource; print(resource.getrlimit(resource.RLIMIT_NPROC)[0])").stdout
    assert int(out) != -1 and int(out) >= 16
