"""``codur --confirm``: before each write the user sees its diff and answers y, n, a or q.

:class:`WriteConfirmation` is the ``confirm(tool_name, args) -> bool`` callback of
:func:`codur.run` (tool policy ``confirm_writes``; the ToolExecutor calls it before every
FILE_MUTATION tool). The diff is computed from the call's arguments against the file as it
is now: ``write_file``'s content, ``replace_in_file``'s old → new, ``apply_patch``'s diff
as given. Answers (Rich's Prompt, read from stdin): ``y`` this write, ``n`` not this one,
``a`` this one and every later write of the run, ``q`` not this one and cancel the run.
"""

from __future__ import annotations

import select
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.prompt import Prompt

from codur.core.files import unified_diff
from codur.ui.summary import print_diff

ANSWERS = ["y", "n", "a", "q"]


def write_diff(repo: Path, tool: str, args: dict[str, Any]) -> str:
    """The unified diff the write would make ('' when none can be computed from the arguments).

    Reads only files inside ``repo`` (a path outside it shows no diff; the executor refuses it anyway).
    """
    if tool == "apply_patch":
        return str(args.get("patch", ""))
    path = str(args.get("path", ""))
    before = _read(repo, path)
    if tool == "write_file":
        after = str(args.get("content", ""))
    elif tool == "replace_in_file":
        old, new = str(args.get("old", "")), str(args.get("new", ""))
        if before is not None and old and before.count(old) == 1:
            after = before.replace(old, new, 1)
        else:  # the tool will refuse it; show what was asked
            before, after = old, new
    else:
        return ""
    return unified_diff(path, before, after)


def _read(repo: Path, path: str) -> str | None:
    """The file's text now; None when it does not exist, is outside the repo or cannot be read."""
    root = repo.resolve()
    try:
        target = (root / path).resolve()
        if not path or not target.is_relative_to(root) or not target.is_file():
            return None
        return target.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


class WriteConfirmation:
    """The confirm callback: shows each write's diff and asks y/n/a/q.

    Args:
        repo: the run's repository (diffs are computed against its files).
        console: where the diff and the question go (stderr's Console under ``--json``).
        on_quit: called once on ``q`` (or end of input): cancels the run.
        pause: a context manager factory that hides the progress spinner while asking.
        cancel: the run's cancel event: once set (Ctrl-C while the question waits), the
            question ends as ``q`` instead of waiting for a line that may never come.
    """

    def __init__(self, repo: Path, console: Console, *, on_quit: Callable[[], None],
                 pause: Callable[[], Any] | None = None, cancel: threading.Event | None = None) -> None:
        self.repo, self.console, self.on_quit, self.pause = Path(repo), console, on_quit, pause
        self.cancel = cancel or threading.Event()
        self.all = False
        self.quit = False
        self.asked: list[tuple[str, str]] = []  # (tool, answer), in order

    def __call__(self, tool: str, args: dict[str, Any]) -> bool:
        if self.quit:
            return False
        if self.all:
            return True
        return self._paused(self._ask, tool, args)

    def _paused(self, ask: Callable[..., bool], *args: Any) -> bool:
        """``ask(*args)`` with the progress spinner hidden."""
        if self.pause is None:
            return ask(*args)
        with self.pause():
            return ask(*args)

    def _ask(self, tool: str, args: dict[str, Any]) -> bool:
        target = args.get("path") or args.get("src") or ""
        self.console.print(f"[bold yellow]? {escape(tool)}[/] {escape(str(target))}", highlight=False)
        diff = write_diff(self.repo, tool, args)
        if diff:
            print_diff(self.console, diff)
        elif tool in ("move_file", "delete_file"):
            self.console.print(f"  {escape(', '.join(f'{k}={v}' for k, v in args.items()))}", highlight=False)
        try:
            answer = Prompt.ask("apply this write? (y)es, (n)o, (a)ll, (q)uit", choices=ANSWERS,
                                show_choices=False, console=self.console, stream=_Stdin(self.cancel))
        except EOFError:  # no one answers: refuse and stop
            answer = "q"
        self.asked.append((tool, answer))
        if answer == "a":
            self.all = True
        if answer == "q":
            self.quit = True
            self.on_quit()
        return answer in ("y", "a")


    def risky(self, path: str, findings: list[str]) -> bool:
        """Asked before a write that adds risky code (:mod:`codur.tools.risk`): y writes it,
        anything else refuses it; an earlier "all" does not cover it."""
        if self.quit:
            return False
        return self._paused(self._ask_risky, path, findings)

    def _ask_risky(self, path: str, findings: list[str]) -> bool:
        self.console.print(f"[bold red]! risky change to {escape(path)}:[/] {escape('; '.join(findings))}",
                           highlight=False)
        try:
            answer = Prompt.ask("write it anyway? (y)es, (n)o", choices=["y", "n"], show_choices=False,
                                console=self.console, stream=_Stdin(self.cancel))
        except EOFError:
            answer = "n"
        self.asked.append(("risky", answer))
        return answer == "y"


class _Stdin:
    """``sys.stdin.readline`` that gives up (EOFError) once ``cancel`` is set, polling every
    0.2 s; a stdin without a file descriptor (a test's) is read directly."""

    def __init__(self, cancel: threading.Event) -> None:
        self.cancel = cancel

    def readline(self) -> str:
        stdin = sys.stdin
        try:
            fd = stdin.fileno()
        except (AttributeError, OSError, ValueError):
            fd = None
        while fd is not None and not self.cancel.is_set():
            if select.select([fd], [], [], 0.2)[0]:
                break
        if self.cancel.is_set():
            raise EOFError
        line = stdin.readline()
        if not line:
            raise EOFError
        return line
