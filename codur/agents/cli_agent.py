"""A command-line agent: an external program (an AI CLI, a script) behind :class:`AgentPort`.

The command runs in ``plan.repo_root`` in its own session (its own process group), so a
timeout or Ctrl-C kills it and everything it started: SIGTERM to the group, then SIGKILL to
the group after a grace period. The prompt goes on stdin, or replaces every argument that
is exactly ``"{prompt}"`` (stdin is then empty).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

from codur.core.ports import ExecutionPlan, ExecutionResult, QuotaState
from codur.llm.quota import quota_from_output
from codur.sandbox.lifetime import die_with_parent
from codur.sandbox.process import signal_group

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

    def run(self, plan: ExecutionPlan) -> ExecutionResult:
        """Run the command once on ``plan`` (see the class docstring for the outcomes)."""
        cwd = Path(plan.repo_root)
        if not cwd.is_dir():
            return ExecutionResult(success=False, exit_code=1, output=f"repo root not found: {cwd}")
        on_stdin = PROMPT_PLACEHOLDER not in self.command
        argv = [plan.prompt if arg == PROMPT_PLACEHOLDER else arg for arg in self.command]
        start = time.monotonic()
        try:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                stdin=subprocess.PIPE if on_stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**os.environ, **self.env} if self.env is not None else None,
                text=True,
                encoding="utf-8",
                errors="replace",
                start_new_session=True,
                preexec_fn=die_with_parent(),
            )
        except (FileNotFoundError, PermissionError) as exc:
            return ExecutionResult(
                success=False, exit_code=-1, output=f"command not found: {argv[0]} ({exc.strerror})"
            )
        except OSError as exc:  # e.g. E2BIG: a "{prompt}" argument longer than ARG_MAX
            return ExecutionResult(
                success=False, exit_code=1, output=f"could not start {argv[0]}: {exc}"
            )
        try:
            stdout, stderr = proc.communicate(plan.prompt if on_stdin else None, self.timeout_s)
        except subprocess.TimeoutExpired:
            stdout, stderr = self._kill_group(proc)
            text = _join(stdout, stderr)
            return ExecutionResult(
                success=False,
                exit_code=TIMEOUT_EXIT_CODE,
                output=f"{self.name}: timed out after {self.timeout_s:g} s\n{_tail(text)}",
                quota_state=quota_from_output(text),
                duration_s=time.monotonic() - start,
            )
        except KeyboardInterrupt:
            with contextlib.suppress(Exception):
                self._kill_group(proc)
            raise
        duration = time.monotonic() - start
        if proc.returncode == 0:
            return ExecutionResult(success=True, output=_tail(stdout), duration_s=duration)
        text = _join(stdout, stderr)
        return ExecutionResult(
            success=False,
            exit_code=proc.returncode,
            output=f"{self.name}: {argv[0]} exited with code {proc.returncode}\n{_tail(text)}",
            quota_state=quota_from_output(text) if text else QuotaState(),
            duration_s=duration,
        )

    def _kill_group(self, proc: subprocess.Popen) -> tuple[str, str]:
        """SIGTERM the process group, SIGKILL it after the grace, reap; return partial output."""
        pgid = proc.pid  # start_new_session: the child leads its own group
        signal_group(pgid, signal.SIGTERM)
        try:
            proc.wait(self.term_grace_s)
        except subprocess.TimeoutExpired:
            pass
        finally:  # even on a second Ctrl-C during the grace
            signal_group(pgid, signal.SIGKILL)  # also the grandchildren that ignored SIGTERM
        try:
            stdout, stderr = proc.communicate(timeout=self.term_grace_s)
        except subprocess.TimeoutExpired:  # a descendant left the group and holds the pipes
            proc.kill()
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
            proc.wait()
            return "", ""
        return stdout or "", stderr or ""




def _join(stdout: str | None, stderr: str | None) -> str:
    return "\n".join(part.rstrip("\n") for part in (stdout, stderr) if part)


def _tail(text: str | None, cap: int = OUTPUT_CAP_CHARS) -> str:
    """The last ``cap`` characters of ``text``, with a visible note when some were cut."""
    text = text or ""
    if len(text) <= cap:
        return text
    return f"[... {len(text) - cap} earlier characters truncated ...]\n{text[-cap:]}"
