"""Fork server ("zygote") of codur's repair engine: one per worker, pytest preloaded.

Standalone (no codur import); run as ``python codur_repair_zygote.py`` with the
repository's interpreter. Protocol, one JSON object per line:

- it prints ``{"ready": true}`` once pytest and the pytest11 plugins are imported;
- it reads jobs ``{"cwd": dir, "args": [...], "env": {...}, "timeout": seconds}``;
- for each job it forks a child that runs ``pytest.main(args)`` in its own process group
  (stdio on /dev/null), prints ``{"pid": n}``, then ``{"rc": code, "timeout": bool}``.
  A child over its timeout is killed with its whole process group (``os.killpg``).

Closing stdin kills the running child and ends the server. Forking from a warm process
saves the interpreter start and the pytest import for every mutant.
"""
import gc
import json
import os
import select
import signal
import sys
import time


def _send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _child(job):
    try:
        os.setpgid(0, 0)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.chdir(job["cwd"])
        sys.path.insert(0, job["cwd"])
        os.environ.update(job.get("env") or {})
        sys.argv = ["pytest"] + job["args"]
        import pytest

        code = int(pytest.main(job["args"]))
    except BaseException:
        code = 70
    os._exit(code)


def _killpg(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def _wait(pid, timeout):
    """Wait for ``pid`` at most ``timeout`` seconds; return (exit code, timed out)."""
    deadline = time.monotonic() + timeout
    pidfd = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                _killpg(pid)  # stray grandchildren
                return os.waitstatus_to_exitcode(status), False
            left = deadline - time.monotonic()
            if left <= 0:
                _killpg(pid)
                os.waitpid(pid, 0)
                return -9, True
            fds = [0] + ([pidfd] if pidfd is not None else [])
            ready, _, _ = select.select(fds, [], [], min(left, 0.05 if pidfd is None else left))
            if 0 in ready and not os.read(0, 1 << 16):  # controller went away
                _killpg(pid)
                os._exit(0)
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _preload():
    """Import pytest, its builtin plugins, the installed pytest11 plugins and coverage."""
    import importlib

    import pytest  # noqa: F401
    from _pytest.config import default_plugins

    names = ["_pytest." + name for name in default_plugins]
    try:
        from importlib.metadata import entry_points

        names += [ep.value.split(":")[0] for ep in entry_points(group="pytest11")]
    except Exception:
        pass
    for name in names + ["coverage", "codur_repair_plugin"]:
        try:
            importlib.import_module(name)
        except Exception:
            pass


def main():
    sys.path.pop(0)
    sys.dont_write_bytecode = True
    _preload()
    gc.freeze()  # children's gc passes skip the preloaded heap (and its copy-on-write)
    _send({"ready": True})
    stdin = os.fdopen(0, "rb", buffering=0)
    buf = b""
    while True:
        while b"\n" not in buf:
            chunk = stdin.read(1 << 16)
            if not chunk:
                return
            buf += chunk
        line, buf = buf.split(b"\n", 1)
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(job)
        _send({"pid": pid})
        code, timed_out = _wait(pid, float(job["timeout"]))
        _send({"rc": code, "timeout": timed_out})


if __name__ == "__main__":
    main()
