"""The Executor: every agent invocation goes through it.

Contract (the Executor specification, v0.6: ``Executor(agent: AgentPort, *, max_retries=2,
base_delay=2.0)``, ``execute(plan: IterationPlan, dry_run=False) -> ExecutionResult``):

- dry run: log the prompt (first 3000 characters), invoke nothing, write nothing;
- otherwise save the prompt to ``<repo_root>/.codur/current_prompt.txt`` (atomically), run
  the agent, and retry a failed attempt up to ``max_retries`` times after
  ``min(base_delay * 2**attempt, 30)`` seconds (attempt 0 is the first retry; the backoff of
  :class:`codur.llm.policy.CallPolicy`, which retries each model call of an LLM agent: the
  graph gives an LLM agent ``max_retries=0`` here, and a cli or Python agent the run's);
- never retry ``exit_code == -1`` (command not found) nor a RATE_LIMITED / QUOTA_EXHAUSTED
  quota state: waiting a few seconds does not fix either;
- an exception from the agent is a failed attempt (its quota read by
  :func:`codur.llm.quota.quota_from_exception`); KeyboardInterrupt is re-raised at once;
- the run's deadline ends the retries: no retry after a
  :class:`codur.llm.deadline.DeadlineExceeded` (the model call found the run's time up), and,
  when a ``deadline`` is given, no retry whose backoff would end past it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from codur.core.codur_folder import LinkedCodurFolder, codur_path
from codur.core.files import atomic_write_bytes
from codur.core.ports import AgentPort, ExecutionResult, IterationPlan, QuotaStatus
from codur.llm import policy
from codur.llm.deadline import DeadlineExceeded
from codur.llm.quota import quota_from_exception

PROMPT_FILE = Path(".codur") / "current_prompt.txt"
DRY_RUN_PROMPT_CHARS = 3000
MAX_DELAY_S = policy.MAX_DELAY_S
_NO_RETRY_QUOTA = frozenset({QuotaStatus.RATE_LIMITED, QuotaStatus.QUOTA_EXHAUSTED})


class Executor:
    """Run an :class:`AgentPort` with retries, backoff, quota awareness and dry run.

    Args:
        agent: the agent to run.
        max_retries: retries after the first failed attempt (so at most ``max_retries + 1``
            invocations); must be >= 0.
        base_delay: backoff base, seconds; the n-th retry (n = 0, 1, ...) waits
            ``min(base_delay * 2**n, 30.0)`` seconds; must be >= 0.
        sleep: called with the delay in seconds (tests pass a recorder).
        clock: monotonic clock in seconds, for ``duration_s`` and ``deadline``.
        deadline: ``clock()`` value of the run's end, or None; a retry whose backoff would end
            past it is not made.
        logger: where retries (WARNING) and dry runs (INFO) are logged; defaults to this
            module's logger.

    Raises:
        ValueError: ``max_retries`` or ``base_delay`` is negative.
    """

    def __init__(
        self,
        agent: AgentPort,
        *,
        max_retries: int = 2,
        base_delay: float = 2.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        logger: logging.Logger | None = None,
        deadline: float | None = None,
    ) -> None:
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        if base_delay < 0:
            raise ValueError(f"base_delay must be >= 0, got {base_delay}")
        self.agent = agent
        self.max_retries = max_retries
        self.base_delay = base_delay
        self._sleep = sleep
        self._clock = clock
        self._log = logger or logging.getLogger(__name__)
        self.deadline = deadline
        self._out_of_time = False

    def execute(self, plan: IterationPlan, dry_run: bool = False) -> ExecutionResult:
        """Run the agent on ``plan``, retrying failures as described in the module docstring.

        Args:
            plan: what to do; ``plan.repo_root`` receives ``.codur/current_prompt.txt``.
            dry_run: log the prompt and return ``ExecutionResult(success=True,
                output="(dry run)", dry_run=True, attempts=0)`` without invoking the agent.

        Returns:
            The last attempt's result, its quota_state untouched, with ``attempts`` (number of
            invocations) and ``duration_s`` (seconds from the first invocation to the end of
            the last, backoff included) set by the Executor.

        Raises:
            KeyboardInterrupt: from the agent, at once, without retry.
        """
        if dry_run:
            self._log.info(
                "dry run: agent %s not invoked; prompt (first %d chars):\n%s",
                self._agent_name(plan),
                DRY_RUN_PROMPT_CHARS,
                plan.prompt[:DRY_RUN_PROMPT_CHARS],
            )
            return ExecutionResult(success=True, output="(dry run)", dry_run=True, attempts=0)

        self._save_prompt(plan)
        start = self._clock()
        attempt = 0
        while True:
            result = self._attempt(plan)
            if result.success or attempt >= self.max_retries or not _retryable(result) or self._out_of_time:
                break
            delay = policy.CallPolicy(base_delay_s=self.base_delay).delay_s(attempt)  # the model calls' backoff
            if self.deadline is not None and self._clock() + delay >= self.deadline:
                break  # the retry would start after the run's end
            self._log.warning(
                "agent %s failed (attempt %d of %d), retrying in %.1f s: %s",
                self._agent_name(plan),
                attempt + 1,
                self.max_retries + 1,
                delay,
                _first_line(result.output),
            )
            self._sleep(delay)
            attempt += 1
        return replace(result, attempts=attempt + 1, duration_s=self._clock() - start)

    def _attempt(self, plan: IterationPlan) -> ExecutionResult:
        try:
            return self.agent.run(plan)
        except Exception as exc:  # noqa: BLE001 - any error is a failed attempt; Ctrl-C passes
            self._log.debug("agent %s raised", self._agent_name(plan), exc_info=True)
            self._out_of_time = isinstance(exc, DeadlineExceeded)
            return ExecutionResult(
                success=False,
                output=f"{type(exc).__name__}: {exc}",
                exit_code=1,
                quota_state=quota_from_exception(exc),
            )

    def _save_prompt(self, plan: IterationPlan) -> None:
        """Write the prompt atomically; a failure to write is logged, not fatal."""
        path = Path(plan.repo_root) / PROMPT_FILE
        try:
            path = codur_path(Path(plan.repo_root), PROMPT_FILE.name)
            atomic_write_bytes(path, plan.prompt.encode("utf-8"))
        except (OSError, LinkedCodurFolder) as exc:
            self._log.warning("could not save the prompt to %s: %s", path, exc)

    def _agent_name(self, plan: IterationPlan) -> str:
        return getattr(self.agent, "name", "") or plan.agent


def _retryable(result: ExecutionResult) -> bool:
    return result.exit_code != -1 and result.quota_state.status not in _NO_RETRY_QUOTA


def _first_line(text: str, limit: int = 200) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:limit]
    return "(no output)"


AgentRunner = Executor  # internal alias: codur's callers' earlier name
