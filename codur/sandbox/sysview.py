"""The root a sandbox shows when what runs in it needs an interpreter and nothing else of the machine.

The RLM's REPL runs code a model wrote over an input it was handed (a log, a dump, a repo's files:
text anyone may have written). Under the tools' sandbox (:func:`codur.sandbox.bwrap.bwrap_argv`) the
whole filesystem is readable (``--ro-bind / /``) but for the private /tmp and home, so such code
could print another project's ``.env`` or a server's config by its absolute path (and, for a run as
root, ``/etc/shadow``). :func:`system_view` is the root such a sandbox gets instead, on bwrap's empty
root: the system's programs and libraries (:data:`SYSTEM`) and the folders the interpreter needs
(its prefix, its base prefix, the worker's code), read-only, with the symbolic links on the way to
them made again. The least privilege a program needs (Saltzer & Schroeder, "The Protection of
Information in Computer Systems", 1975).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from codur.sandbox.bwrap import _walk, never_bound

#: what of the system an interpreter needs: programs and shared libraries (the locale and time-zone
#: data lie under /usr), the loader's cache and configuration, the local time, the alternatives'
#: links, the user and group names; no other file of /etc
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc/ld.so.cache", "/etc/ld.so.conf",
          "/etc/ld.so.conf.d", "/etc/localtime", "/etc/alternatives", "/etc/passwd", "/etc/group",
          "/etc/nsswitch.conf")


def system_view(used: Iterable[Path]) -> list[str]:
    """bwrap's options that make its (empty) root show :data:`SYSTEM` and the folders ``used``
    (absolute paths: an interpreter's ``sys.prefix`` and ``sys.base_prefix``, the folder of the code it
    runs), each read-only at its real location, and each symbolic link on the way to one made again
    (``--symlink``). A folder :func:`codur.sandbox.bwrap.never_bound` refuses (the home, a credential
    folder) is left out. For ``bwrap_argv(view=)``, which puts them after its private /tmp: a prefix
    under /tmp (a test's venv) is shown too."""
    args: list[str] = []
    shown: list[Path] = []
    for name in SYSTEM:
        if os.path.islink(name):
            args += ["--symlink", os.readlink(name), name]
        elif os.path.exists(name):
            args += ["--ro-bind", name, name]
            shown.append(Path(name))
    reals: list[Path] = []
    links: list[tuple[Path, str]] = []
    for path in used:
        real, met = _walk(Path(path).absolute())
        if real.exists() and not never_bound(real) and real not in reals:
            reals.append(real)
        links += [(at, text) for at, text in met if (at, text) not in links]
    reals = [r for r in reals if not any(r != o and r.is_relative_to(o) for o in [*reals, *shown])]
    args += [arg for real in reals for arg in ("--ro-bind", str(real), str(real))]
    for at, text in links:
        if not any(at.is_relative_to(folder) for folder in [*shown, *reals]):
            args += ["--symlink", text, str(at)]
    return args

