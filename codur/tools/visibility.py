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

SECRET_PATTERNS = (".env", ".env.*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", "*.p12", ".netrc", "_netrc", ".pypirc",
                   ".git-credentials", "credentials")


def is_secret(rel: str) -> bool:
    """True for files that commonly hold credentials (.env, keys, certificates)."""
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(name, pat) for pat in SECRET_PATTERNS)


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
                           or (is_secret(name) and not allow_secrets)):
                continue
            out.append(here / name)
    return out
