"""What the repo-level commands (``runs``, ``show``, ``undo``, ``config``, ``trust``) share:
the consoles, the ``--repo`` option and the one-line error. Typer and Rich only."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

console = Console(highlight=False)
err = Console(stderr=True, highlight=False, soft_wrap=True)  # an error is one line, however long

REPO = typer.Option(Path("."), "--repo", "-r", help="The repository (default: current directory).")


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``codur: message`` on stderr (one line, no markup) and return the exit to raise (code 2: bad input)."""
    err.print(f"codur: {message}", markup=False)
    return typer.Exit(code)


def repo_dir(repo: Path) -> Path:
    """``repo`` resolved.

    Raises:
        typer.Exit: code 2, it is no folder (said on stderr).
    """
    if not repo.is_dir():
        raise fail(f"repository path does not exist or is not a folder: {repo}")
    return repo.resolve()
