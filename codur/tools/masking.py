"""What the sandbox and the git tools do not show of the repo: its credential files, found by
name and by content at any depth, and the credentials in its ``.git`` files.

:func:`masked_files` lists the files the code codur runs sees as empty (``bwrap_argv(masked=)``)
and that ``git_status`` / ``git_diff`` leave out (:func:`hide_in_status`, :func:`hide_in_diff`):
every file whose path :func:`codur.tools.visibility.is_secret` names (the one list, with its
sources), a link to one (by the link's name or its target's), and a configuration file (see
:data:`SCANNED`) in which detect-secrets' detectors find a secret (:mod:`codur.sandbox.secrets`).
:func:`blank_masked` empties them in repair's worker copies. :func:`git_views` makes copies
of ``.git/config``, ``FETCH_HEAD`` and the reflogs with the
credentials taken out of remote URLs (``https://user:token@host`` -> ``https://host``) and the
``extraheader`` lines dropped; the sandbox is given those copies in place of the real files, so
no encoding of what it can read (zlib, base64) holds the token.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from pathlib import Path

from codur.core.files import IGNORED_DIRS
from codur.sandbox.bwrap import hidden_in_sandbox
from codur.sandbox.secrets import redact
from codur.testing.confine import OriginSecrets
from codur.tools.visibility import is_secret

#: Suffixes of the configuration files whose content is scanned ("" : no suffix); source code is
#: not (a test's fake key must stay readable by the code under repair).
SCANNED = ("", ".json", ".yml", ".yaml", ".toml", ".ini", ".cfg", ".conf", ".txt", ".properties", ".xml",
           ".config", ".secret", ".credentials")
#: Files larger than this (bytes) are not scanned.
SCAN_MAX_BYTES = 256 * 1024
#: ``.git`` files that may hold a remote URL with its credentials (besides ``logs/**``).
GIT_FILES = ("config", "FETCH_HEAD")
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s]+@")
_EXTRAHEADER = re.compile(r"(?im)^\s*extraheader\s*=.*$")
_found: dict[tuple[str, int, int], bool] = {}


def holds_secret(path: Path) -> bool:
    """True when the configuration file ``path`` (see :data:`SCANNED`, at most
    :data:`SCAN_MAX_BYTES`) holds a secret detect-secrets' detectors find; cached by path, size
    and modification time."""
    try:
        info = path.stat()
    except OSError:
        return False
    if path.suffix.lower() not in SCANNED or info.st_size > SCAN_MAX_BYTES or not info.st_size:
        return False
    key = (str(path), info.st_mtime_ns, info.st_size)
    if key not in _found:
        try:
            text = path.read_bytes().decode("utf-8", "replace")
        except OSError:
            return False
        _found[key] = bool(redact(text).kinds)
    return _found[key]


def masked_files(root: Path) -> list[Path]:
    """The files of ``root`` (resolved) at any depth (not in :data:`IGNORED_DIRS`) that the sandbox
    shows as empty: by name, by content, and links to such files (given as the file they lead
    to, when the sandbox can see it: a link's target in the hidden home is hidden already)."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS and not d.endswith(".egg-info"))
        here = Path(dirpath)
        for name in sorted(filenames):
            path = here / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                target = Path(os.path.realpath(path))
                inside = target.is_relative_to(root)
                secret = is_secret(rel) or is_secret(target.relative_to(root).as_posix() if inside else target.name)
                if target.is_file() and (secret or holds_secret(target)) and (inside or not hidden_in_sandbox(target)):
                    out.append(target)
            elif is_secret(rel) or holds_secret(path):
                out.append(path)
    return list(dict.fromkeys(out))


def linked_secrets(root: Path) -> list[Path]:
    """Credential files outside ``root`` of the checkouts its :func:`git_dirs` belong to, that
    the sandbox shows (not in its private /tmp or home): a linked worktree's main checkout, its
    :func:`masked_files` (a user's ``.env`` lies there, beside the worktree an agent works in);
    an enclosing checkout (``root`` a folder of a monorepo, or a submodule), the credential files
    of each folder on the way up to it (``monorepo/.env``), not its whole tree. [] for a repo of
    its own."""
    root = Path(root).resolve()
    out: list[Path] = []
    for git in git_dirs(root):
        main = git.parent
        if git.name != ".git" or main == root or hidden_in_sandbox(main):
            continue
        if root.is_relative_to(main):
            out += [f for up in root.parents if up.is_relative_to(main) for f in sorted(up.iterdir())
                    if f.is_file() and not f.is_symlink() and (is_secret(f.name) or holds_secret(f))]
        else:
            out += [p for p in masked_files(main) if not p.is_relative_to(root)]
    return list(dict.fromkeys(out))


def masked_names(root: Path) -> set[str]:
    """The repo-relative POSIX paths of :func:`masked_files` and of the links that lead to them."""
    files = set(masked_files(root))
    out = {p.relative_to(root).as_posix() for p in files if p.is_relative_to(root)}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in IGNORED_DIRS]
        out |= {(Path(dirpath) / n).relative_to(root).as_posix() for n in filenames
                if (Path(dirpath) / n).is_symlink() and Path(os.path.realpath(Path(dirpath) / n)) in files}
    return out


def blank_masked(root: Path) -> None:
    """Empty, in a copy of a repo (``root``, resolved: repair's worker copies), each file
    :func:`masked_names` lists; a link among them becomes an empty file (its target may be the
    repo's own file). The tests run in the copy then read them as the sandbox shows them."""
    root = root.resolve()
    for rel in sorted(masked_names(root)):
        path = root / rel
        if path.is_symlink():
            path.unlink()
        path.write_bytes(b"")


def _hidden(rel: str, masked: set[str]) -> bool:
    return rel in masked or is_secret(rel)


def hide_in_status(out: str, masked: set[str]) -> str:
    """``git status --short`` output without the lines of masked or secret-named paths."""
    kept = []
    for line in out.splitlines(keepends=True):
        paths = line[3:].rstrip("\n").split(" -> ") if not line.startswith("##") else []
        if not any(_hidden(p.strip('"'), masked) for p in paths):
            kept.append(line)
    return "".join(kept)


def hide_in_diff(out: str, masked: set[str]) -> str:
    """``git diff`` output with each masked or secret-named file's part replaced by one line."""
    parts = re.split(r"(?m)^(?=diff --git )", out)
    kept = []
    for part in parts:
        head = re.match(r"diff --git a/(.*) b/(.*)$", part.split("\n", 1)[0])
        if head and (_hidden(head.group(1), masked) or _hidden(head.group(2), masked)):
            kept.append(f"(changes to {head.group(2)} not shown: it may hold secrets)\n")
        else:
            kept.append(part)
    return "".join(kept)


def clean_git_text(text: str) -> str:
    """``text`` (a ``.git`` file) with the credentials of its URLs and its ``extraheader`` lines taken out."""
    return _EXTRAHEADER.sub("", _URL_CREDENTIALS.sub(r"\1", text))


def git_views(root: Path) -> list[tuple[Path, Path]]:
    """(copy, real file) pairs for the git files of ``root`` that hold credentials
    (:data:`GIT_FILES` and the reflogs) in each of its :func:`git_dirs`, each copy cleaned
    (:func:`clean_git_text`) and written read-only under ``$TMPDIR/codur-git-<uid>/``; the
    sandbox binds each copy over its file."""
    files = [f for git in git_dirs(root) for f in
             [git / n for n in GIT_FILES] + sorted(p for p in (git / "logs").rglob("*") if p.is_file())[:500]]
    out = []
    for real in files:
        try:
            text = real.read_text(errors="surrogateescape")
        except OSError:
            continue
        clean = clean_git_text(text)
        if clean != text:
            out.append((_write_copy(real, clean), real))
    return out


def git_dirs(root: Path) -> list[Path]:
    """The git folders of the repo ``root``: its ``.git`` folder; for a linked worktree or a
    submodule (``.git`` a file, ``gitdir: <folder>``) that folder, the main repository's
    (``commondir``) and a superproject's (an enclosing ``.git``), where the remotes'
    configuration lives, outside ``root``; for a folder inside a repository (no ``.git`` of its
    own), the enclosing repository's. [] for none."""
    dot = Path(root) / ".git"
    if not dot.exists() and not dot.is_symlink():
        top = next((p for p in Path(root).resolve().parents if (p / ".git").exists()), None)
        return git_dirs(top) if top is not None else []
    if dot.is_dir():
        first = dot
    else:
        try:
            head = dot.read_text(errors="replace").strip()
        except OSError:
            return []
        if not head.startswith("gitdir:"):
            return []
        first = (dot.parent / head.removeprefix("gitdir:").strip()).resolve()
    dirs = [first]
    with contextlib.suppress(OSError):  # no commondir: a repository of its own
        dirs.append((first / (first / "commondir").read_text().strip()).resolve())
    dirs += [up for up in first.parents if up.name == ".git"]  # a submodule's superproject
    return [d for d in dict.fromkeys(dirs) if d.is_dir()]


def _write_copy(real: Path, text: str) -> Path:
    folder = Path(tempfile.gettempdir()) / f"codur-git-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = folder.lstat()
    if not os.path.isdir(folder) or folder.is_symlink() or info.st_uid != os.getuid():
        raise OSError(f"{folder} is not a folder of this user's; remove it")
    data = text.encode(errors="surrogateescape")
    copy = folder / hashlib.sha256(str(real).encode() + b"\0" + data).hexdigest()[:24]
    if not copy.exists():
        tmp = copy.with_suffix(f".{os.getpid()}")
        tmp.write_bytes(data)
        tmp.chmod(0o444)
        os.replace(tmp, copy)
    return copy


def origin_secrets(root: Path, *, allow_secrets: bool = False) -> OriginSecrets:
    """What repair's and localization's confined test runs must not read of the repo ``root`` by its
    absolute path (:class:`codur.testing.confine.OriginSecrets`): its :func:`masked_files` and its
    :func:`git_views`; nothing under ``allow_secrets``."""
    if allow_secrets:
        return OriginSecrets()
    root = Path(root).resolve()
    return OriginSecrets(tuple(masked_files(root) + linked_secrets(root)), tuple(git_views(root)))
