"""A command-line agent: an external program (an AI CLI, a script) behind :class:`AgentPort`.

The command runs in ``plan.repo_root`` through codur's one process runner
(:func:`codur.sandbox.process.run_process`: its own process group, dying with codur), so a
timeout or Ctrl-C kills it and everything it started: SIGTERM to the group, then SIGKILL to
the group after a grace period. It inherits codur's environment (plus ``env``). The prompt
goes on stdin, or replaces every argument that is exactly ``"{prompt}"`` (stdin is then empty).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from codur.core.ports import AgentResult, AgentTask, QuotaState
from codur.llm.quota import quota_from_output
from codur.sandbox.process import run_process

PROMPT_PLACEHOLDER = "{prompt}"
OUTPUT_CAP_CHARS = 8000
TIMEOUT_EXIT_CODE = 124  # as coreutils' timeout(1)


class CommandLineAgent:
    """Run ``command`` once per plan and report its exit status and output.

    Args:
        name: the agent's name (as configured).
        command: argv, e.g. ``["aider", "--message", "{prompt}"]``; must not be empty.
        timeout_s: wall-clock limit per run, seconds.
        env: variables added to (and overriding) the inherited environment, or None.
        term_grace_s: seconds between SIGTERM and SIGKILL when the group is killed.

    Raises:
        ValueError: ``command`` is empty or ``timeout_s`` is not positive.

    ``run`` returns, and does not raise, for ordinary failures:

    - exit 0: ``success=True``, output = stdout (last ``OUTPUT_CAP_CHARS`` characters);
    - non-zero exit: ``success=False``, that exit code, output = a header line and the tail
      of stdout + stderr, quota_state from :func:`quota_from_output`;
    - executable not found or not executable: ``exit_code=-1``, "command not found: ...";
    - timeout: the group killed, ``exit_code=124``, "timed out after N s".

    KeyboardInterrupt kills the group and is re-raised.
    """

    def __init__(
        self,
        name: str,
        command: list[str],
        *,
        timeout_s: float = 600.0,
        env: Mapping[str, str] | None = None,
        term_grace_s: float = 5.0,
    ) -> None:
        if not command:
            raise ValueError("command must not be empty")
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, got {timeout_s}")
        self.name = name
        self.command = list(command)
        self.timeout_s = timeout_s
        self.env = dict(env) if env is not None else None
        self.term_grace_s = term_grace_s

    def run(self, plan: AgentTask) -> AgentResult:
        """Run the command once on ``plan`` (see the class docstring for the outcomes)."""
        cwd = Path(plan.repo_root)
        if not cwd.is_dir():
            return AgentResult(success=False, exit_code=1, output=f"repo root not found: {cwd}")
        on_stdin = PROMPT_PLACEHOLDER not in self.command
        argv = [plan.prompt if arg == PROMPT_PLACEHOLDER else arg for arg in self.command]
        env = {**os.environ, **self.env} if self.env is not None else dict(os.environ)
        try:
            done = run_process(argv, cwd=cwd, timeout_s=self.timeout_s, stdin=plan.prompt if on_stdin else None,
                               env=env, grace_s=self.term_grace_s)
        except (FileNotFoundError, PermissionError) as exc:
            return AgentResult(
                success=False, exit_code=-1, output=f"command not found: {argv[0]} ({exc.strerror})"
            )
        except OSError as exc:  # e.g. E2BIG: a "{prompt}" argument longer than ARG_MAX
            return AgentResult(
                success=False, exit_code=1, output=f"could not start {argv[0]}: {exc}"
            )
        text = _join(done.stdout, done.stderr)
        if done.timed_out:
            return AgentResult(
                success=False,
                exit_code=TIMEOUT_EXIT_CODE,
                output=f"{self.name}: timed out after {self.timeout_s:g} s\n{_tail(text)}",
                quota_state=quota_from_output(text),
                duration_s=done.duration_s,
            )
        if done.exit_code == 0:
            return AgentResult(success=True, output=_tail(done.stdout), duration_s=done.duration_s)
        return AgentResult(
            success=False,
            exit_code=done.exit_code,
            output=f"{self.name}: {argv[0]} exited with code {done.exit_code}\n{_tail(text)}",
            quota_state=quota_from_output(text) if text else QuotaState(),
            duration_s=done.duration_s,
        )


def _join(stdout: str | None, stderr: str | None) -> str:
    return "\n".join(part.rstrip("\n") for part in (stdout, stderr) if part)


def _tail(text: str | None, cap: int = OUTPUT_CAP_CHARS) -> str:
    """The last ``cap`` characters of ``text``, with a visible note when some were cut."""
    text = text or ""
    if len(text) <= cap:
        return text
    return f"[... {len(text) - cap} earlier characters truncated ...]\n{text[-cap:]}"
