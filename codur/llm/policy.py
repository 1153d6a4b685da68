"""One model-call policy for every role: retries with backoff, then the next profile.

The planner, the actor's tool loop and the critic call their role's chain of models
through :func:`with_policy`, which is langchain-core's own machinery: each model is
wrapped with ``Runnable.with_retry`` (tenacity underneath) and the chain with
``Runnable.with_fallbacks``. So a role's call is:

1. the first profile's model; a failed call is made again after
   ``min(base_delay_s * 2**n, 30)`` seconds (n = 0, 1, ...), at most ``max_retries`` times,
   when :meth:`CallPolicy.retryable` says so;
2. then the next profile of the role (fallback), with the same retries; the chain's later
   calls (the next iterations of a tool loop) start from the profile it fell back to;
3. the first error is raised when every profile failed.

Not retried (:meth:`CallPolicy.retryable`): a 429 (``RATE_LIMITED`` or ``QUOTA_EXHAUSTED``
as :func:`codur.llm.quota.quota_from_exception` reads it: a Retry-After of at most
``retry_after_cap_s`` was already waited for inside the call by
:class:`codur.llm.deadline.DeadlineChatOpenAI`, and a longer one or ``insufficient_quota``
is not fixed by waiting seconds), another 4xx but 408 and 409 (the request itself is
wrong), :class:`codur.llm.deadline.DeadlineExceeded` and
:class:`codur.llm.deadline.ModelCallCancelled`, any error once the run's deadline has
passed or the run was cancelled. KeyboardInterrupt is no ``Exception``: it passes at once.
Fallback to the next profile happens on any ``Exception`` (another provider may have quota).
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from tenacity import wait_exponential_jitter

from codur.core.ports import QuotaStatus
from codur.llm.deadline import DeadlineExceeded, ModelCallCancelled
from codur.llm.quota import quota_from_exception

MAX_DELAY_S = 30.0
# tenacity 9 names the backoff base "multiplier" ("initial" is deprecated); older ones "initial"
_BASE = "multiplier" if "multiplier" in inspect.signature(wait_exponential_jitter).parameters else "initial"
_NO_RETRY_QUOTA = frozenset({QuotaStatus.RATE_LIMITED, QuotaStatus.QUOTA_EXHAUSTED})


@dataclass(frozen=True)
class CallPolicy:
    """How a role's model call is retried.

    Attributes:
        max_retries: calls made again after the first failed one, per profile (>= 0).
        base_delay_s: backoff base, seconds: the n-th retry waits ``min(base_delay_s * 2**n, 30)``.
        deadline: ``time.monotonic()`` value of the run's end, or None; no retry after it.
        cancel: the run's cancel event, or None; no retry once it is set.
    """

    max_retries: int = 2
    base_delay_s: float = 2.0
    deadline: float | None = None
    cancel: threading.Event | None = None

    @classmethod
    def for_run(cls, config: Any, limits: Any = None) -> CallPolicy:
        """The policy of a run: ``config.max_retries`` and ``config.retry_base_delay_s`` (a
        :class:`codur.config.CodurConfig`), the deadline and cancel event of ``limits`` (a
        :class:`Limits` with ``started_at``, ``timeout_s`` and ``cancel``), when given."""
        deadline = limits.started_at + limits.timeout_s if limits is not None else None
        return cls(max_retries=config.max_retries, base_delay_s=config.retry_base_delay_s, deadline=deadline,
                   cancel=getattr(limits, "cancel", None))

    def delay_s(self, retry: int) -> float:
        """Seconds before the ``retry``-th retry (0 for the first)."""
        return min(self.base_delay_s * 2**retry, MAX_DELAY_S)

    def retryable(self, exc: BaseException) -> bool:
        """Whether a call that raised ``exc`` is worth making again (see the module docstring)."""
        if not isinstance(exc, Exception) or isinstance(exc, DeadlineExceeded | ModelCallCancelled):
            return False
        if self.cancel is not None and self.cancel.is_set():
            return False
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return False
        if quota_from_exception(exc).status in _NO_RETRY_QUOTA:
            return False
        status = getattr(exc, "status_code", None)
        return not (isinstance(status, int) and 400 <= status < 500 and status not in (408, 409))

    def wrap(self, model: Runnable) -> Runnable:
        """``model`` with this policy's retries (``Runnable.with_retry``)."""
        if self.max_retries == 0:
            return model
        return model.with_retry(
            retry_if_exception_type=self.retryable, stop_after_attempt=self.max_retries + 1,
            wait_exponential_jitter=True,
            exponential_jitter_params={_BASE: self.base_delay_s, "max": MAX_DELAY_S, "exp_base": 2,  # type: ignore[misc]
                                       "jitter": 0},
        )


def with_policy(models: Sequence[Runnable], policy: CallPolicy, *, role: str = "") -> Runnable:
    """A role's chain of models as one Runnable: each retried by ``policy``, then the next.

    Args:
        models: the role's models, first choice first (already bound to their tools, if any:
            bind before wrapping, a binding made after would drop the retries).
        policy: the retry policy.
        role: named in the ``model.fallback`` event (:class:`codur.core.events.model.ModelFallback`,
            "role", "from_profile", "to_profile"}``) emitted when the next profile is tried.

    Raises:
        ValueError: ``models`` is empty.
    """
    if not models:
        raise ValueError(f"no model for role {role or '?'}")
    wrapped = [policy.wrap(m) for m in models]
    if len(wrapped) == 1:
        return wrapped[0]
    return _RoleChain(wrapped, role)


class _RoleChain(Runnable):
    """A role's chain: ``with_fallbacks`` over the retried models, starting from the profile the
    chain last fell back to, so a down profile is not asked again (with its retries) on every
    call of a tool loop. The ``model.fallback`` event is emitted here, outside any runnable's
    context (LangGraph's stream writer is not reachable from inside a RunnableLambda)."""

    def __init__(self, wrapped: list[Runnable], role: str) -> None:
        self.role = role
        self.reached = 0

        def mark(index: int) -> Runnable:
            def passthrough(value: Any) -> Any:
                self.reached = max(self.reached, index)
                return value

            return RunnableLambda(passthrough, name=f"fallback:{role}:{index}")

        self.chains = [wrapped[k].with_fallbacks([mark(i) | wrapped[i] for i in range(k + 1, len(wrapped))],
                                                 exceptions_to_handle=(Exception,))
                       if k + 1 < len(wrapped) else wrapped[k] for k in range(len(wrapped))]

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        start = self.reached
        try:
            return self.chains[start].invoke(input, config, **kwargs)
        finally:
            if self.reached != start:
                from codur.core.events import emit
                from codur.core.events.model import ModelFallback

                emit(ModelFallback(role=self.role, from_profile=start, to_profile=self.reached))
