"""The bridge: llm_query, rlm_query and batch_rlm_query, served in the parent for REPL code.

The sandbox worker sends each call over its pipes; :class:`Bridge` answers it
with the executor's model and budget, and records a :class:`SubCall` in the trace.
Recursion through sub-RLMs follows Zhang, Kraska & Khattab, "Recursive Language Models" (2025).

rlm_query decides, in this order:
  1. no model call is allowed by this executor's budget (cost, tokens or time spent): one
     direct answer (a single llm_query, mode ``direct``) when an ancestor's budget still allows
     one call, charged to it; at the root, whose cost or tokens are spent, a direct answer too,
     each time (:meth:`Budget.claim_final_answer`: the only calls past the root's limit, each
     said in the trace's warnings; a spent wall-clock limit allows none); otherwise no call and
     no exception: the string :data:`NO_BUDGET` (mode ``refused``), which the REPL code can read
     and the model answer from;
  2. no sub-RLM is allowed (depth limit): one direct model answer (mode ``direct``);
  3. the budget left is below the downgrade threshold: llm_query instead (``downgraded``);
  4. otherwise a sub-executor with an allocated sub-budget (``rlm``).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage

from codur.llm.pricing import price_per_mtok
from codur.llm.usage import call_usage
from codur.rlm.budget import Budget, BudgetExceeded, Usage
from codur.rlm.helpers import truncate
from codur.rlm.prompts import direct_answer_prompt
from codur.rlm.trace import RLMTrace, SubCall, SubCallMode

NO_BUDGET = "[no budget: {reason}; rlm_query made no model call — answer from what you have]"

Spawn = Callable[[str, Any, Budget], RLMTrace]
"""Runs a sub-executor: (task, context, child budget) -> its finished trace."""


@dataclass(frozen=True)
class ModelClient:
    """A chat model with its name and price table, returning text and :class:`Usage`.

    Args:
        model: a LangChain chat model (``.invoke(messages)``).
        name: the model name used for pricing.
        prices: extra {model prefix: (USD/Mtok in, USD/Mtok out)}.
        options: keyword arguments passed to every call.
    """

    model: Any
    name: str
    prices: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    """Keyword arguments of every call (e.g. ``{"temperature": 0.7}`` for one voted trajectory)."""

    def invoke(self, messages: list[BaseMessage]) -> tuple[str, Usage]:
        """One model call. A prompt the server refuses as longer than the model's window (an HTTP 400
        saying so) is sent once more fitted (:func:`fitted`: the system prompt, the first turn, and the
        last turn cut to a quarter). Raises whatever the model raises otherwise, or on that second call."""
        t0 = time.monotonic()
        try:
            reply = self.model.invoke(messages, **self.options)
        except Exception as exc:  # noqa: BLE001 - only a prompt past the window is tried again, below
            if not CONTEXT_EXCEEDED.search(str(exc)) or len(messages) < 2:
                raise
            t0 = time.monotonic()
            reply = self.model.invoke(fitted(messages), **self.options)
        return self._read(reply, t0)

    def invoke_json(self, messages: list[BaseMessage], response_format: Mapping | None = None
                    ) -> tuple[str, Usage, bool]:
        """One model call whose reply must be a JSON object: ``{"answer": "..."}`` by default.

        The schema goes as an OpenAI ``response_format`` of type ``json_schema``
        (``response_format``, default :data:`ANSWER_FORMAT`), which llama.cpp's OpenAI-compatible server (the embedded
        model) turns into a grammar, so the reply cannot be prose. A model or server that
        refuses the argument (a 400 / 422, an HTTP error naming ``response_format``, or a chat
        model without it: AttributeError, TypeError, ValueError, NotImplementedError) is called
        once more without it.

        Returns:
            (reply text, usage, True when the schema was sent and accepted).

        Raises:
            whatever the model raises on the call without the schema, or on the first call for
            any other reason (a timeout is not retried).
        """
        t0 = time.monotonic()
        try:
            reply = self.model.bind(response_format=dict(response_format or ANSWER_FORMAT)).invoke(
                messages, **self.options)
        except Exception as exc:  # noqa: BLE001 - only a refused argument falls back, below
            if not _refused_argument(exc):
                raise
            t0 = time.monotonic()
            return (*self._read(self.model.invoke(messages, **self.options), t0), False)
        return (*self._read(reply, t0), True)

    def _read(self, reply: Any, t0: float) -> tuple[str, Usage]:
        content = reply.content if isinstance(reply.content, str) else str(reply.content)
        return content, call_usage(getattr(reply, "usage_metadata", None), self.usd_per_mtok(),
                                   time.monotonic() - t0)

    def usd_per_mtok(self) -> tuple[float, float] | None:
        """This model's prices (USD per million tokens in, out; :data:`prices` first, then
        :func:`codur.llm.pricing.price_per_mtok`), or None when no price is known."""
        return price_per_mtok(self.name, overrides=self.prices)


ANSWER_FORMAT = {"type": "json_schema", "json_schema": {"name": "answer", "strict": True, "schema": {
    "type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"],
    "additionalProperties": False}}}
"""The final answer's OpenAI ``response_format``: a JSON object with one string ``answer``."""

CHECK_FORMAT = {"type": "json_schema", "json_schema": {"name": "answer_check", "strict": True, "schema": {
    "type": "object", "properties": {"supported": {"type": "boolean"}, "answer": {"type": "string"},
                                     "reason": {"type": "string"}},
    "required": ["supported", "answer", "reason"], "additionalProperties": False}}}
"""The answer check's ``response_format``: supported (bool), the value the evidence gives, a reason."""


#: a server's words for a prompt past the model's window (llama.cpp, OpenAI, vLLM)
CONTEXT_EXCEEDED = re.compile(r"exceeds the available context size|maximum context length|context_length_exceeded"
                              r"|too many tokens", re.IGNORECASE)


def fitted(messages: list[BaseMessage]) -> list[BaseMessage]:
    """``messages`` shortened after a refusal for length: the system prompt and the first turn (the question),
    then the last message cut to a quarter of its length (its head and tail), the turns between left out."""
    last = messages[-1]
    cut = type(last)(truncate(str(last.content), max(len(str(last.content)) // 4, 200)))
    return [*messages[:2], cut] if len(messages) > 2 else [messages[0], cut]


def _refused_argument(exc: Exception) -> bool:
    """True for an error that says the model or server does not take ``response_format``."""
    if isinstance(exc, AttributeError | TypeError | ValueError | NotImplementedError):
        return True
    status = getattr(exc, "status_code", None) or getattr(getattr(exc, "response", None), "status_code", None)
    return status in (400, 422) or (status is not None and "response_format" in str(exc))


class Bridge:
    """Serves one executor's bridge calls; pass it to the Sandbox as its ``bridge``.

    Args:
        client: the model for every call.
        budget: this executor's budget (usage is recorded here and in its ancestors).
        trace: this executor's trace (sub-calls are added to it).
        spawn: runs a sub-executor (given by the engine).
        sub_max_iterations: REPL iterations of each sub-RLM.
        rlm_share: fraction of the remaining budget one rlm_query child gets.
        batch_share: fraction of the remaining budget a whole batch shares.
        sub_call_chars: context characters a direct or downgraded answer sees.
    """

    def __init__(self, *, client: ModelClient, budget: Budget, trace: RLMTrace, spawn: Spawn,
                 sub_max_iterations: int = 4, rlm_share: float = 0.5, batch_share: float = 0.8,
                 sub_call_chars: int = 12_000) -> None:
        self.client, self.budget, self.trace, self.spawn = client, budget, trace, spawn
        self.sub_max_iterations = sub_max_iterations
        self.rlm_share, self.batch_share = rlm_share, batch_share
        self.sub_call_chars = sub_call_chars

    def __call__(self, name: str, args: dict) -> Any:
        """Dispatch a bridge request from the worker. Raises ValueError on an unknown name."""
        if name == "llm_query":
            return self.llm_query(args["prompt"])
        if name == "rlm_query":
            return self.rlm_query(args["task"], args.get("context"))
        if name == "batch_rlm_query":
            return self.batch_rlm_query(args["tasks"], args.get("contexts"))
        raise ValueError(f"unknown bridge call {name!r}")

    # -- one model call -------------------------------------------------------------------------

    def _model_call(self, kind: str, mode: SubCallMode, prompt: str, gate: Budget | None = None, *,
                    checked: bool = True) -> SubCall:
        """One model call as a SubCall; refused (BudgetExceeded) when ``gate`` (default: this
        executor's budget) allows no call (not asked with ``checked=False``: the root's final
        direct answer). Usage is charged to this budget and its ancestors."""
        t0 = time.monotonic()
        reason = (gate or self.budget).check("call") if checked else None
        if reason:
            return SubCall(kind, "refused", prompt, error=f"budget exhausted: {reason}")  # type: ignore[arg-type]
        try:
            text, usage = self.client.invoke([HumanMessage(prompt)])
        except Exception as exc:  # noqa: BLE001 - recorded, then raised into the code
            return SubCall(kind, mode, prompt, error=f"{type(exc).__name__}: {exc}",  # type: ignore[arg-type]
                           duration_s=time.monotonic() - t0)
        self.budget.record(usage)
        return SubCall(kind, mode, prompt, text, usage=usage, duration_s=time.monotonic() - t0)  # type: ignore[arg-type]

    @staticmethod
    def _result(call: SubCall) -> str:
        if call.mode == "refused":
            raise BudgetExceeded(f"{call.kind} refused: {call.error}")
        if call.error:
            raise RuntimeError(call.error)
        return call.answer or ""

    def llm_query(self, prompt: str) -> str:
        """Ask the model ``prompt`` once and return its text.

        Raises:
            BudgetExceeded: cost, tokens or time are spent.
            RuntimeError: the model call failed.
        """
        call = self._model_call("llm_query", "model", prompt)
        self.trace.add_subcall(call)
        return self._result(call)

    # -- sub-RLMs -------------------------------------------------------------------------------

    def _mode(self) -> SubCallMode:
        if self.budget.check("call"):
            return "refused"
        if self.budget.check("subcall"):
            return "direct"
        return "downgraded" if self.budget.should_downgrade() else "rlm"

    def _fallback(self, mode: SubCallMode, task: str, context: str | None, gate: Budget | None = None, *,
                  checked: bool = True) -> SubCall:
        """A direct or downgraded answer: one model call on the task and (truncated) context."""
        text = truncate(context, self.sub_call_chars) if context else ""
        prompt = direct_answer_prompt(task, text) if mode == "direct" else f"{task}\n\n{text}" if text else task
        call = self._model_call("rlm_query", mode, prompt, gate, checked=checked)
        if context and len(context) > self.sub_call_chars:
            self.trace.warn(f"rlm_query served as {mode}: its context was truncated to {self.sub_call_chars:,} chars")
        return call

    def _sub_rlm(self, task: str, context: str | None, budget: Budget) -> SubCall:
        t0 = time.monotonic()
        try:
            child = self.spawn(task, task if context is None else context, budget)
        except Exception as exc:  # noqa: BLE001 - recorded, then raised into the code
            return SubCall("rlm_query", "rlm", task, error=f"{type(exc).__name__}: {exc}",
                           usage=budget.spent, duration_s=time.monotonic() - t0)
        error = child.error if child.answer_source == "error" else None
        return SubCall("rlm_query", "rlm", task, child.answer, error, usage=child.usage,
                       duration_s=time.monotonic() - t0, trace=child)

    def _spent(self, task: str, context: str | None) -> SubCall:
        """rlm_query with this budget spent: one direct answer on an ancestor's budget, or at the root
        (time left) a direct answer past its cost or token limit, each time; else none."""
        ancestor = self.budget.parent
        while ancestor is not None and ancestor.check("call"):
            ancestor = ancestor.parent
        if ancestor is not None:
            return self._fallback("direct", task, context, gate=ancestor)
        reason = self.budget.exhausted_reason() or "budget exhausted"
        if self.budget.claim_final_answer():
            self.trace.warn(f"rlm_query at the root past its budget ({reason}): direct answer "
                            f"{self.budget.final_answers}, over the limit")
            return self._fallback("direct", task, context, checked=False)
        return SubCall("rlm_query", "refused", task, NO_BUDGET.format(reason=reason),
                       error=f"budget exhausted: {reason}")

    def rlm_query(self, task: str, context: str | None = None) -> str:
        """Answer ``task`` over ``context`` (default: the task text itself) with a sub-RLM.

        Falls back as the module docstring says: with no budget left it returns a direct answer
        or the :data:`NO_BUDGET` string, it does not raise.

        Raises:
            RuntimeError: the sub-RLM or the model failed.
        """
        mode = self._mode()
        if mode == "refused":
            call = self._spent(task, context)
            self.trace.add_subcall(call)
            if call.mode == "refused":  # no budget anywhere (or spent meanwhile): said in the answer, not raised
                return call.answer or NO_BUDGET.format(reason=(call.error or "budget exhausted").removeprefix(
                    "budget exhausted: "))
            return self._result(call)
        if mode == "rlm":
            budget = self.budget.allocate(self.rlm_share, max_iterations=self.sub_max_iterations)
            call = self._sub_rlm(task, context, budget)
        else:
            call = self._fallback(mode, task, context)
        self.trace.add_subcall(call)
        return self._result(call)

    def batch_rlm_query(self, tasks: Sequence[str], contexts: Sequence[str | None] | None = None) -> list[str]:
        """Answer independent tasks with concurrent sub-RLMs; answers in the order of ``tasks``.

        Concurrency is :meth:`Budget.parallelism`; each child gets ``batch_share / len(tasks)``
        of the remaining cost and tokens. A failed task's answer is ``"[error: ...]"``. With this
        budget spent, each task falls back as :meth:`rlm_query` does: a direct answer on an
        ancestor's budget while one has room, else the :data:`NO_BUDGET` string.

        Raises:
            ValueError: ``contexts`` is given with another length than ``tasks``.
        """
        tasks = list(tasks)
        contexts = list(contexts) if contexts is not None else [None] * len(tasks)
        if len(contexts) != len(tasks):
            raise ValueError(f"batch_rlm_query got {len(tasks)} tasks but {len(contexts)} contexts")
        if not tasks:
            return []
        t0 = time.monotonic()
        mode = self._mode()
        if mode == "refused":  # one at a time: each direct answer may spend what the next one needed
            children = [self._spent(task, context) for task, context in zip(tasks, contexts, strict=True)]
            usage = sum((c.usage for c in children), Usage())
            self.trace.add_subcall(SubCall("batch_rlm_query", "refused", f"{len(tasks)} tasks, budget spent",
                                           usage=usage, duration_s=time.monotonic() - t0, children=children))
            return [c.answer or "" if c.mode == "refused" or not c.error else f"[error: {c.error}]"
                    for c in children]
        parallel = self.budget.parallelism(len(tasks))
        waves = math.ceil(len(tasks) / parallel)
        budgets = [self.budget.allocate(self.batch_share / len(tasks), max_iterations=self.sub_max_iterations,
                                        wall_share=self.batch_share / waves) for _ in tasks] if mode == "rlm" else []

        def serve(i: int) -> SubCall:
            if mode == "rlm":
                return self._sub_rlm(tasks[i], contexts[i], budgets[i])
            return self._fallback(mode, tasks[i], contexts[i])

        with ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="rlm-batch") as pool:
            children = list(pool.map(serve, range(len(tasks))))
        usage = sum((c.usage for c in children), Usage())
        self.trace.add_subcall(SubCall("batch_rlm_query", mode, f"{len(tasks)} tasks, {parallel} at once",
                                       usage=usage, duration_s=time.monotonic() - t0, children=children))
        return [f"[error: {c.error}]" if c.error else c.answer or "" for c in children]
