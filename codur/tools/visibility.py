"""Which files of the repo a tool sees: secrets hidden, every .gitignore honoured, globs matched.

:func:`walk_files` lists a folder's files the way every tool does (never ``.git``, ``.codur``,
virtualenvs or caches: :data:`codur.core.files.IGNORED_DIRS`); with ``visible`` only what the
model may see. :func:`is_secret` names the files that commonly hold credentials;
:func:`glob_matcher` is the one glob rule of the tools' ``pattern`` / ``glob`` arguments.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable
from pathlib import Path

import pathspec

from codur.core.files import IGNORED_DIRS

#: The one list of file names that hold credentials, each with the tool that writes it (its
#: documentation is the source): ``.env`` files (python-dotenv, docker compose), TLS and SSH
#: keys (OpenSSL ``*.pem``/``*.key``/``*.p12``/``*.pfx``, ssh-keygen ``id_*``), netrc (curl, git,
#: pip: ``.netrc``, ``_netrc``), ``.git-credentials`` (git credential-store), ``.pypirc`` (twine),
#: ``.npmrc`` (npm), ``.pgpass`` (libpq), ``credentials*`` (AWS CLI ``credentials``, Google
#: ``credentials*.json``), ``secrets.y*ml`` (Rails, Kubernetes), ``database.yml`` (Rails),
#: ``*.tfvars``/``*.tfvars.json`` (Terraform), ``.docker/config.json`` (docker login),
#: ``.htpasswd`` (Apache). A pattern with a ``/`` matches the path's end, else the name.
SECRET_PATTERNS = (".env", ".env.*", "*.env", "*.pem", "*.key", "*.p12", "*.pfx", "id_*", ".netrc", "_netrc",
                   ".git-credentials", ".pypirc", ".npmrc", ".pgpass", "credentials", "credentials*.json",
                   "secrets.yml", "secrets.yaml", "secrets.*.yml", "secrets.*.yaml", "database.yml", "*.tfvars",
                   "*.tfvars.json", ".docker/config.json", ".htpasswd")
#: Names ``id_*`` and ``*.key`` would take that are source code, not keys.
_CODE = (".py", ".pyi", ".pyx", ".pxd")


def is_secret(rel: str) -> bool:
    """True for files that commonly hold credentials (:data:`SECRET_PATTERNS`): ``rel`` is a
    repo-relative POSIX path or a name; a Python source file never is."""
    name = rel.rsplit("/", 1)[-1]
    if name.endswith(_CODE):
        return False
    return any(fnmatch.fnmatch(name, pat) if "/" not in pat else ("/" + rel).endswith("/" + pat)
               for pat in SECRET_PATTERNS)


def glob_matcher(pattern: str) -> Callable[[str], bool]:
    """A test for repo-relative POSIX paths: ``'*.py'`` matches file names anywhere,
    ``'src/**/*.py'`` (any pattern with a '/') matches gitignore-style from the root;
    several patterns may be separated by commas."""
    pats = [p.strip() for p in pattern.split(",") if p.strip()] or ["*"]
    names = [p for p in pats if "/" not in p]
    paths = pathspec.GitIgnoreSpec.from_lines([p for p in pats if "/" in p])
    return lambda rel: any(fnmatch.fnmatch(rel.rsplit("/", 1)[-1], p) for p in names) or (
        bool(paths.patterns) and paths.match_file(rel))


class _GitIgnore:
    """The .gitignore files of a repo, nested ones included, read lazily."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.specs: dict[Path, pathspec.GitIgnoreSpec | None] = {}

    def _spec(self, directory: Path) -> pathspec.GitIgnoreSpec | None:
        if directory not in self.specs:
            gi = directory / ".gitignore"
            lines = gi.read_text(errors="replace").splitlines() if gi.is_file() else []
            self.specs[directory] = pathspec.GitIgnoreSpec.from_lines(lines) if lines else None
        return self.specs[directory]

    def ignored(self, path: Path, is_dir: bool) -> bool:
        """The deepest .gitignore with a pattern for ``path`` decides (``!`` re-includes)."""
        for base in [path.parent, *path.parent.parents]:
            spec = self._spec(base)
            if spec is not None:
                verdict = spec.check_file(path.relative_to(base).as_posix() + ("/" if is_dir else "")).include
                if verdict is not None:
                    return verdict
            if base == self.root:
                return False
        return False


def walk_files(root: Path, base: Path, *, visible: bool = False, allow_secrets: bool = False) -> list[Path]:
    """Files under ``base`` (a resolved path inside ``root``; a file is itself), sorted, skipping
    .git, .codur, virtualenvs and caches.

    Args:
        root: the repository root (resolved), where the .gitignore files start.
        visible: only what the model may see: honour every .gitignore (nested ones included;
            ignored directories are not entered) and hide secret files unless ``allow_secrets``.
    """
    if base.is_file():
        return [base]
    ignore = _GitIgnore(root) if visible else None
    out = []
    for dirpath, dirnames, filenames in os.walk(base):
        here = Path(dirpath)
        dirnames[:] = sorted(
            d for d in dirnames if d not in IGNORED_DIRS and not d.endswith(".egg-info")
            and not (ignore and ignore.ignored(here / d, is_dir=True))
        )
        for name in sorted(filenames):
            if ignore and (ignore.ignored(here / name, is_dir=False)
                           or (is_secret((here / name).relative_to(root).as_posix()) and not allow_secrets)):
                continue
            out.append(here / name)
    return out
