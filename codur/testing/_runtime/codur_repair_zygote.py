"""Fork server ("zygote") of codur's repair engine: pytest preloaded, runs jobs concurrently.

Standalone (no codur import); run as ``python codur_repair_zygote.py`` with the
repository's interpreter. Protocol, one JSON object per line:

- it prints ``{"ready": true}`` once pytest, its plugins and coverage are imported;
- it reads jobs ``{"id": n, "cwd": dir, "args": [...], "env": {...}, "timeout": seconds}``;
- for each job it forks a child that runs ``pytest.main(args)`` in ``cwd`` in its own
  process group (stdio on /dev/null, ``CODUR_REPAIR_JOB=<n>`` in its environment, its
  address space limited to ``CODUR_REPAIR_MEMORY_MB`` MiB when the job's env sets it) and
  prints ``{"id": n, "pid": pid}``, later ``{"id": n, "rc": code, "timeout": bool}``. A
  child over its timeout is killed with its whole process group (``os.killpg``). Many
  jobs may run at once;
- ``{"kill": n}`` kills job n's process group (its reply follows as usual).

With ``--sweep`` (given when the server runs in its own PID namespace, under bubblewrap,
where /proc lists only its own processes) a job's end also kills every process tagged
with that job (one that left the process group with ``setsid``, say), and once no job
runs, every process but the server and its parents.

Closing stdin kills every running child and ends the server; every child gets
``PR_SET_PDEATHSIG`` = SIGKILL (Linux), so it dies with the server however the server ends
(codur starts the server with the same, so a killed codur leaves no run behind). Forking from one warm
process saves the interpreter start and the pytest import for every run.
"""
import contextlib
import ctypes
import gc
import json
import os
import select
import signal
import sys
import time

JOB_TAG = "CODUR_REPAIR_JOB"
#: A run's address-space limit in MiB (codur.sandbox.limits.MEMORY_ENV), set in the forked child.
MEMORY_ENV = "CODUR_REPAIR_MEMORY_MB"
#: Run the job at SCHED_IDLE (codur.core.cpu.IDLE_ENV), set in the forked child before pytest starts.
IDLE_ENV = "CODUR_REPAIR_IDLE"

def _send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _die_with_server(server):
    """PR_SET_PDEATHSIG = SIGKILL (Linux): this run dies with the server, however the server
    ends; exit at once if it has already ended."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != server:
        os._exit(1)


def _child(job, server):
    try:
        _die_with_server(server)
        os.setpgid(0, 0)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.chdir(job["cwd"])
        # as ``python -m pytest`` would, plus a src/ layout: the copy must shadow an
        # editable install or PYTHONPATH entry that points at the original repository
        src = os.path.join(job["cwd"], "src")
        sys.path[:0] = [job["cwd"]] + ([src] if os.path.isdir(src) else [])
        os.environ.update(job.get("env") or {})
        os.environ[JOB_TAG] = str(job["id"])
        if os.environ.get(IDLE_ENV) == "1" and hasattr(os, "SCHED_IDLE"):  # before pytest starts
            with contextlib.suppress(OSError):
                os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        memory_mb = int(os.environ.get(MEMORY_ENV) or 0)
        if memory_mb > 0:  # past it an allocation fails: a MemoryError, a failing test
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 2**20, memory_mb * 2**20))
        # the server imported pytest (and what a .pth file imports) before this run's plugins
        # were marked for rewriting: pytest's "already imported" warning is the server's doing,
        # and must not fail a suite whose ini turns warnings into errors
        args = ["-W", "ignore::pytest.PytestAssertRewriteWarning", *job["args"]]
        sys.argv = ["pytest"] + args
        import pytest

        code = int(pytest.main(args))
    except BaseException:  # noqa: BLE001  (a forked child must never return)
        code = 70
    os._exit(code)


def _killpg(pid):
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)


class _Job:
    def __init__(self, job_id, pid, timeout):
        self.id, self.pid = job_id, pid
        self.deadline = time.monotonic() + timeout
        self.pidfd = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None

    def reap(self, timed_out, sweep=None):
        if timed_out:
            _killpg(self.pid)
            _, status = os.waitpid(self.pid, 0)
            code = -9
        else:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if not done:
                return False
            code = os.waitstatus_to_exitcode(status)
        _killpg(self.pid)  # stray grandchildren
        if self.pidfd is not None:
            os.close(self.pidfd)
        if sweep is not None:
            sweep(self.id)
        _send({"id": self.id, "rc": code, "timeout": timed_out})
        return True


def _tag(pid):
    """The job tag in the environment process ``pid`` was started with ("" for none; a
    forked, not exec'd, job child shows the server's); None if it is gone."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = f.read()
    except OSError:
        return None
    prefix = JOB_TAG.encode() + b"="
    return next((v[len(prefix):].decode() for v in env.split(b"\0") if v.startswith(prefix)), "")


def _sweeper(jobs):
    """The sweep of ``--sweep`` (see the module doc), called with the id of the job that ended."""
    keep = {os.getpid(), os.getppid(), 1}

    def sweep(ended):
        running = {str(j.id) for j in jobs.values() if j.id != ended}
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) in keep or int(name) in jobs:
                continue
            tag = _tag(name)
            if tag is not None and (not running or tag == str(ended) or (tag and tag not in running)):
                with contextlib.suppress(OSError):
                    os.kill(int(name), signal.SIGKILL)

    return sweep


def _wait_s(jobs):
    """Seconds select may wait: until the nearest deadline (an hour at most), 0.02 s while a
    job has no pidfd (it is polled)."""
    now = time.monotonic()
    wait = min([j.deadline - now for j in jobs.values()] + [3600.0])
    if any(j.pidfd is None for j in jobs.values()):
        wait = min(wait, 0.02)
    return max(0.0, wait)


def _handle(request, jobs, server):
    """Kill the job ``request["kill"]`` names, or fork a child that runs ``request``."""
    if "kill" in request:
        for job in jobs.values():
            if job.id == request["kill"]:
                _killpg(job.pid)
        return
    pid = os.fork()
    if pid == 0:
        _child(request, server)
    jobs[pid] = _Job(request["id"], pid, float(request["timeout"]))
    _send({"id": request["id"], "pid": pid})


def _serve(sweeping=False):
    jobs, buf, server = {}, b"", os.getpid()
    sweep = _sweeper(jobs) if sweeping else None
    while True:
        fds = [0] + [j.pidfd for j in jobs.values() if j.pidfd is not None]
        ready, _, _ = select.select(fds, [], [], _wait_s(jobs))
        if 0 in ready:
            chunk = os.read(0, 1 << 16)
            if not chunk:  # controller went away
                for job in jobs.values():
                    _killpg(job.pid)
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                _handle(json.loads(line), jobs, server)
        now = time.monotonic()
        for pid in list(jobs):
            if jobs[pid].reap(now >= jobs[pid].deadline, sweep):
                del jobs[pid]


def _preload():
    """Import pytest, its builtin plugins, the installed pytest11 plugins and coverage."""
    import importlib

    import pytest  # noqa: F401
    from _pytest.config import default_plugins

    names = ["_pytest." + name for name in default_plugins]
    try:
        from importlib.metadata import entry_points

        names += [ep.value.split(":")[0] for ep in entry_points(group="pytest11")]
    except Exception:  # noqa: BLE001, S110  (preloading is best effort)
        pass
    for name in names + ["coverage", "codur_repair_plugin"]:
        with contextlib.suppress(Exception):
            importlib.import_module(name)


def main():
    sys.path.pop(0)
    sys.dont_write_bytecode = True
    _preload()
    gc.freeze()  # children's gc passes skip the preloaded heap (and its copy-on-write)
    _send({"ready": True})
    _serve(sweeping="--sweep" in sys.argv[1:])


if __name__ == "__main__":
    main()
