"""What a sandboxed interpreter must see to start and import: the paths :func:`interpreter_paths`
names, which the sandbox binds back when its private /tmp or home would hide them
(:func:`codur.sandbox.bwrap.hidden`, ``bwrap_argv(readable=)``).

A venv may live anywhere (``~/.cache/pypoetry/virtualenvs``, ``~/.virtualenvs``, a
``.venv`` that links out of the repo, a conda env): the interpreter itself is asked, once
per process, where its prefixes and ``sys.path`` folders are, under a read-only, offline
bwrap, since its start-up (a ``.pth`` file) may run code.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from pathlib import Path

from codur.sandbox.bwrap import allowed_env, bwrap_executable, sandbox_disabled

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
    (the path it is started by), its folder (a venv's ``bin/``), the prefix that folder is
    in and the prefix of the file it links to; for a Python interpreter also its
    ``sys.prefix``, ``sys.base_prefix``, ``sys.exec_prefix`` and every ``sys.path`` folder
    (user site, editable installs' sources), as it reports them (:func:`asked`)."""
    exe = Path(shutil.which(program) or program).absolute()
    found = (exe, exe.parent, exe.parent.parent, exe.resolve().parent.parent)
    return found + (asked(str(exe)) if exe.name.lower().startswith("python") else ())


@functools.cache
def asked(python: str) -> tuple[Path, ...]:
    """The prefixes and the folders on ``python``'s ``sys.path`` (see :data:`_PROBE`), as it
    reports them; () when it cannot say. Asked once per process, at most 20 seconds.

    Asking runs the interpreter's start-up (its ``.pth`` files may run code): under bwrap
    when one works, with the whole filesystem read-only and no network, so that code can
    neither change nor send anything."""
    argv = [python, "-c", _PROBE]
    bwrap = None if sandbox_disabled() else bwrap_executable()
    if bwrap is not None:
        argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid",
                "--die-with-parent", "--", *argv]
    try:
        res = subprocess.run(argv, cwd="/", capture_output=True, text=True, timeout=20, check=False,
                             env=allowed_env(), stdin=subprocess.DEVNULL)
        entries = json.loads(res.stdout) if res.returncode == 0 else []
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return ()
    return tuple(dict.fromkeys(Path(e) for e in entries if isinstance(e, str) and os.path.isabs(e)
                               and os.path.isdir(e)))
