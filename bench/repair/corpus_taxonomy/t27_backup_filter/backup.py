"""Which files of a project a backup copies: chosen extensions, no hidden files, nothing
under ignored directories."""

from pathlib import PurePosixPath

IGNORED_DIRS = {"node_modules", "__pycache__", ".git", "build"}


def wanted(path, extensions):
    parts = PurePosixPath(path).parts
    if any(part in IGNORED_DIRS for part in parts[:-1]):
        return False
    name = parts[-1]
    return name.endswith(tuple(extensions))


def select(paths, extensions=(".py", ".md", ".toml")):
    return sorted(p for p in paths if wanted(p, extensions))


def by_extension(paths):
    """{suffix: count}; files without a suffix are counted under '(none)'."""
    counts = {}
    for path in paths:
        suffix = PurePosixPath(path).suffix or "(none)"
        counts[suffix] = counts.get(suffix, 0) + 1
    return counts
