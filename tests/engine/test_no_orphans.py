"""Nothing codur starts outlives it: a SIGKILLed run leaves no process behind, and the
temporary folders it could not remove are swept by a later run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from codur.sandbox.lifetime import OWNER, own, owner_alive, sweep
from tests.repair.conftest import OFF_BY_ONE, write_repo
from tests.repair.test_hanging import NEVER_ADVANCED  # test_run loops forever

CODUR = Path(sys.executable).with_name("codur")


def marked(mark: str) -> set[int]:
    """Live processes (not zombies) whose environment holds ``mark``."""
    found = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            env = Path(f"/proc/{name}/environ").read_bytes()
            state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if mark.encode() in env and state not in ("Z", "X"):
            found.add(int(name))
    return found


def assert_none_left(mark: str, within_s: float = 2.0) -> None:
    """Every process marked ``mark`` ends within ``within_s`` seconds."""
    deadline = time.monotonic() + within_s
    while marked(mark) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = {p: argv_of(p) for p in marked(mark)}
    assert left == {}, f"outlived codur: {left}"


def argv_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def parent_of(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def start_codur(tmp_path: Path, mark: str, files: dict[str, str] = NEVER_ADVANCED) -> subprocess.Popen:
    """``codur run`` on a repo of ``files``, mutation only, no sandbox, its temp folders in tmp_path/tmp."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODUR_") and k != "VIRTUAL_ENV"}
    # PYTHONPATH passes codur's environment allowlist and every child's PYTHONPATH keeps it: every
    # child it starts carries the mark (a folder that does not exist changes no import)
    env.update({"CODUR_SANDBOX": "off", "CODUR_FIXERS": '["mutation"]', "TMPDIR": str(temp),
                "PYTHONPATH": f"/nonexistent/{mark}"})
    repo = write_repo(tmp_path / "repo", files)
    return subprocess.Popen([str(CODUR), "run", "make the failing tests pass", "--repo", str(repo), "--quiet"],
                            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def test_a_normal_run_leaves_no_temp_folder_and_no_process(tmp_path: Path):
    mark = f"codur-orphan-{uuid.uuid4().hex}"
    codur = start_codur(tmp_path, mark, OFF_BY_ONE)
    assert codur.wait(timeout=240) == 0  # fixed by a mutant
    assert "range(len(xs))" in (tmp_path / "repo" / "calc.py").read_text()
    assert [p.name for p in (tmp_path / "tmp").iterdir() if p.name.startswith("codur-")] == []
    assert_none_left(mark)


def test_a_sigkilled_run_leaves_no_process_and_its_temp_folders_are_swept(tmp_path: Path):
    mark = f"codur-orphan-{uuid.uuid4().hex}"
    codur = start_codur(tmp_path, mark)
    try:
        deadline = time.monotonic() + 60
        while not any("pytest" in argv_of(p) for p in marked(mark) - {codur.pid}):
            assert codur.poll() is None and time.monotonic() < deadline, "no test run started"
            time.sleep(0.1)
        time.sleep(0.5)  # the looping test is running
        children = marked(mark) - {codur.pid}
        assert children
        codur.send_signal(signal.SIGKILL)
        codur.wait()
        assert_none_left(mark)
    finally:
        for pid in marked(mark):  # never leave them to the rest of the suite
            os.kill(pid, signal.SIGKILL)
    folders = [p for p in (tmp_path / "tmp").iterdir() if p.name.startswith("codur-")]
    assert folders and all((p / OWNER).is_file() and not owner_alive(p) for p in folders)  # killed: left behind
    assert sweep(tmp_path / "tmp") == []  # younger than a day: kept
    assert sorted(sweep(tmp_path / "tmp", max_age_s=0)) == sorted(folders)
    assert not any(p.exists() for p in folders)


def test_sweep_takes_only_old_folders_of_dead_owners(tmp_path: Path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    old = time.time() - 2 * 86400
    folders = {}
    for name, owner, age in [("codur-pytest-dead", f"{dead.stdout.strip()} 1", old),
                             ("codur-repair-alive", None, old), ("codur-localize-young", "999999999 1", None),
                             ("codur-run-keep", "999999999 1", old), ("codur-rlm-noowner", "", old)]:
        folder = tmp_path / name
        folder.mkdir()
        if owner is None:
            own(folder)
        elif owner:
            (folder / OWNER).write_text(owner)
        if age:
            os.utime(folder, (age, age))
        folders[name] = folder
    assert sorted(p.name for p in sweep(tmp_path)) == ["codur-pytest-dead", "codur-rlm-noowner"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["codur-localize-young", "codur-repair-alive",
                                                          "codur-run-keep"]


#: Starts the repair fork server with a run of the looping test, and an RLM worker, then waits.
HOLDER = """
import sys, threading, time
from pathlib import Path
from codur.testing.forkserver import take_runner
from codur.rlm.sandbox import Sandbox
repo = Path(sys.argv[1])
runner = take_runner(sys.executable, repo)
started = threading.Event()
threading.Thread(target=runner.run, args=(repo, ["-q", "-p", "no:cacheprovider"], {}, 600.0,
                 lambda kill: started.set()), daemon=True).start()
sandbox = Sandbox("x").start()
started.wait(60)
print("ready", flush=True)
time.sleep(600)
"""


def test_the_fork_server_its_runs_and_the_rlm_worker_die_with_codur(tmp_path: Path):
    mark = f"codur-orphan-{uuid.uuid4().hex}"
    repo = write_repo(tmp_path / "repo", NEVER_ADVANCED)
    env = {**os.environ, "CODUR_SANDBOX": "off", "PYTHONPATH": f"/nonexistent/{mark}"}
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(repo)], env=env, stdout=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        assert holder.stdout.readline().strip() == b"ready"
        started = [argv_of(p) for p in marked(mark) - {holder.pid}]
        assert sum("codur_repair_zygote" in a for a in started) >= 2  # the server and its (forked) run
        assert any("rlm/worker.py" in a for a in started)
        for pid in marked(mark):  # a server too busy to notice its stdin close: only the kernel ends it
            if parent_of(pid) == holder.pid:
                os.kill(pid, signal.SIGSTOP)
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        assert_none_left(mark)
    finally:
        holder.kill()
        holder.wait()
        for pid in marked(mark):
            os.kill(pid, signal.SIGKILL)
