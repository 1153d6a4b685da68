"""Pinned PyPI sdists and virtual environments, cached under ``~/.cache/codur-bench/``.

- :func:`sdist` downloads ``package==version`` as a source distribution with pip
  (``pip download --no-deps --no-binary :all:``), checks its sha256 and unpacks it once.
- :func:`venv_template` builds, once per set of pinned requirements, a virtual environment
  of the base interpreter holding them; :func:`clone_venv` copies it to ``<repo>/.venv`` in
  a second, rewriting the script headers and activate files that name the template's path.

``CODUR_BENCH_CACHE`` moves the cache.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

CACHE = Path(os.environ.get("CODUR_BENCH_CACHE", Path.home() / ".cache" / "codur-bench"))


class SdistError(RuntimeError):
    """A download failed, or its sha256 is not the pinned one."""


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def download(package: str, version: str, sha256: str = "") -> Path:
    """The sdist archive of ``package==version`` in the cache, downloaded when absent.

    Args:
        sha256: the pinned digest ('' accepts any, for finding a new bug's digest).
    Raises:
        SdistError: pip failed, or the file's sha256 differs from ``sha256``.
    """
    folder = CACHE / "sdists" / f"{package}-{version}"
    found = sorted(folder.glob("*.tar.gz")) + sorted(folder.glob("*.zip"))
    if not found:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
            proc = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                                   "--disable-pip-version-check", f"{package}=={version}", "-d", tmp],
                                  capture_output=True, text=True)
            got = [p for p in Path(tmp).iterdir() if p.name.endswith((".tar.gz", ".zip"))]
            if proc.returncode or not got:
                raise SdistError(f"pip download {package}=={version} failed: {proc.stderr.strip()[-300:]}")
            found = [Path(shutil.move(got[0], folder / got[0].name))]
    archive = found[0]
    if sha256 and (digest := sha256_of(archive)) != sha256:
        raise SdistError(f"{archive.name}: sha256 {digest}, pinned {sha256}")
    return archive


def sdist(package: str, version: str, sha256: str = "") -> Path:
    """The unpacked source tree of ``package==version`` (its one top folder), unpacked once.

    Raises:
        SdistError: see :func:`download`.
    """
    root = CACHE / "src" / f"{package}-{version}"
    if not (root / ".unpacked").is_file():
        archive = download(package, version, sha256)
        shutil.rmtree(root, ignore_errors=True)
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
            if archive.name.endswith(".zip"):
                with zipfile.ZipFile(archive) as z:
                    z.extractall(tmp)
            else:
                with tarfile.open(archive) as t:
                    t.extractall(tmp, filter="data")
            tops = list(Path(tmp).iterdir())
            top = tops[0] if len(tops) == 1 and tops[0].is_dir() else Path(tmp)
            root.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(top, root)
        (root / ".unpacked").write_text(archive.name + "\n")
    return root


def _base_python() -> str:
    """The interpreter the current one (maybe a venv's) was made from."""
    return getattr(sys, "_base_executable", None) or sys.executable


def venv_template(requirements: list[str]) -> Path:
    """A cached virtual environment with ``requirements`` (pinned ``name==version`` lines) installed.

    Raises:
        SdistError: venv creation or pip install failed.
    """
    key = hashlib.sha256("\n".join([sys.version, *sorted(requirements)]).encode()).hexdigest()[:16]
    path = CACHE / "venvs" / key
    if (path / ".ready").is_file():
        return path
    shutil.rmtree(path, ignore_errors=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    steps = [[_base_python(), "-m", "venv", str(path)],
             [str(path / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
              *requirements]]
    for cmd in steps:
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode:
            raise SdistError(f"{' '.join(cmd[:4])}... failed: {proc.stderr.strip()[-400:]}")
    (path / ".ready").write_text("\n".join(requirements) + "\n")
    return path


def clone_venv(template: Path, dest: Path) -> Path:
    """Copy the venv ``template`` to ``dest`` (symlinks kept) and point its scripts at ``dest``."""
    shutil.copytree(template, dest, symlinks=True, ignore=shutil.ignore_patterns(".ready"))
    old, new = str(template), str(dest)
    for script in (dest / "bin").iterdir():
        if script.is_symlink() or not script.is_file():
            continue
        try:
            text = script.read_text()
        except UnicodeDecodeError:
            continue
        if old in text:
            script.write_text(text.replace(old, new))
    return dest
