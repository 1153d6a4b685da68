"""What a sandboxed interpreter must see to start and import: the paths :func:`interpreter_paths`
names, which the sandbox binds back when its private /tmp or home would hide them
(:func:`codur.sandbox.bwrap.hidden`, ``bwrap_argv(readable=)``).

A venv may live anywhere (``~/.cache/pypoetry/virtualenvs``, ``~/.virtualenvs``, a
``.venv`` that links out of the repo, a conda env). Its prefixes are read from files, never
from what the interpreter says (:func:`prefixes`): the folder its ``bin/`` is in, that of
the file it links to, and its ``pyvenv.cfg``'s ``home`` (the base interpreter's ``bin/``) and
that folder's parent. The interpreter is then asked (:func:`asked`) where its ``sys.path``
folders are, in the sandbox (a private home and /tmp, no network, everything read-only),
since its start-up may run code, and a folder it names is kept only when it lies under one
of those prefixes: a repo's own ``.venv/bin/python`` (a shell script, say) cannot have the
home's dot-folders bound by naming them.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from pathlib import Path

from codur.sandbox.bwrap import allowed_env, bind_back, bwrap_executable, never_bound, private_folders, sandbox_disabled

#: Prints, as JSON, the interpreter's prefixes (``sys.prefix``, ``base_prefix``,
#: ``exec_prefix``, ``base_exec_prefix``), its ``sys.path`` and the folders setuptools'
#: editable finders map packages to (their ``__editable___*_finder`` modules' MAPPING).
_PROBE = ("import sys, json\n"
          "mapped = [v for m in list(sys.modules.values()) if getattr(m, '__name__', '').startswith('__editable__')"
          " for v in getattr(m, 'MAPPING', {}).values()]\n"
          "print(json.dumps([sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]"
          " + sys.path + mapped))")


def interpreter_paths(program: str) -> tuple[Path, ...]:
    """The paths ``program`` (a path, or a name on PATH) needs in the sandbox, unresolved (the
    sandbox follows their links, :func:`codur.sandbox.bwrap.bind_back`): the program itself
    (the path it is started by), its folder (a venv's ``bin/``) and the prefixes
    :func:`prefixes` reads; for a Python interpreter also the ``sys.path`` folders under those
    prefixes that it reports (:func:`asked`)."""
    exe = Path(shutil.which(program) or program).absolute()
    found = (exe, exe.parent, *prefixes(exe))
    return found + (asked(str(exe)) if exe.name.lower().startswith("python") else ())


def prefixes(exe: Path) -> tuple[Path, ...]:
    """The prefixes of the interpreter ``exe`` (absolute), read from files: the folder its
    folder is in (``<venv>/bin/python`` -> ``<venv>``), that of the ``python*`` file it links to,
    and, from the ``pyvenv.cfg`` beside its folder (PEP 405), ``home`` (the base interpreter's
    folder, when a ``python*`` file is in it) and its parent (the base prefix). Existing folders
    only."""
    real = exe.resolve()
    found = [exe.parent.parent, *([real.parent.parent] if real.name.lower().startswith("python") else [])]
    for cfg in (exe.parent.parent / "pyvenv.cfg", exe.parent / "pyvenv.cfg"):
        try:
            lines = cfg.read_text(errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            key, _, value = line.partition("=")
            base = Path(value.strip())
            if key.strip().lower() == "home" and base.is_absolute() and any(base.glob("python*")):
                found += [base, base.parent]
        break
    return tuple(dict.fromkeys(p for p in found if p.is_dir()))


@functools.cache
def asked(python: str) -> tuple[Path, ...]:
    """The folders on ``python``'s ``sys.path`` and its editable installs' sources (see
    :data:`_PROBE`), as it reports them, kept only under its :func:`prefixes` and never
    where :func:`codur.sandbox.bwrap.never_bound` refuses (the home, a credential folder); ()
    when it cannot say. Asked once per process, at most 20 seconds.

    Asking runs the interpreter's start-up (its ``.pth`` files may run code, a ``.venv/bin/python``
    may be a repo's own script): under bwrap when one works, with the whole filesystem
    read-only, a private empty home and /tmp (its prefixes bound back), and no network, so that
    code can neither read the home's secrets nor change or send anything."""
    exe = Path(python).absolute()
    own = prefixes(exe)
    argv = [python, "-c", _PROBE]
    bwrap = None if sandbox_disabled() else bwrap_executable()
    if bwrap is not None:
        argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                *(a for home in private_folders() for a in ("--tmpfs", str(home))), *bind_back([exe, *own]),
                "--unshare-net", "--unshare-pid", "--die-with-parent", "--", *argv]
    try:
        res = subprocess.run(argv, cwd="/", capture_output=True, text=True, timeout=20, check=False,
                             env=allowed_env(), stdin=subprocess.DEVNULL)
        entries = json.loads(res.stdout) if res.returncode == 0 else []
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return ()
    if not isinstance(entries, list):
        return ()
    reals = [p.resolve() for p in own]
    return tuple(dict.fromkeys(Path(e) for e in entries if isinstance(e, str) and os.path.isabs(e)
                               and os.path.isdir(e) and _under(Path(e).resolve(), reals)))


def _under(real: Path, prefixes: list[Path]) -> bool:
    return not never_bound(real) and any(real.is_relative_to(p) for p in prefixes if not never_bound(p))
