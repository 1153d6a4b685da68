"""A scripted chat model for tests: plays a given list of replies, supports bind_tools.

LangChain's GenericFakeChatModel and FakeMessagesListChatModel raise on
``bind_tools``, and a fake built once at import is used up after one run; this one
is built per run (or per role) and records every prompt it received.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr

Reply = str | AIMessage | BaseException | Callable[[list[BaseMessage]], "str | AIMessage"]


class ScriptedRepliesExhausted(RuntimeError):
    """Raised when the model is called more times than it has replies."""


class ScriptedChatModel(BaseChatModel):
    """Plays ``replies`` in order, one per call.

    Each reply is a string (becomes ``AIMessage(content=...)``), an ``AIMessage``
    (e.g. with ``tool_calls``), an exception instance (raised, to test retries and
    429s), or a callable taking the prompt messages and returning one of those.
    Usage metadata is estimated at 4 characters per token so budgets can be tested.

    Attributes:
        replies: the script.
        default_reply: played for every call past the end of the script; None: such a call raises.
        calls: every prompt received, as lists of messages (read it in tests).
        call_kwargs: the keyword arguments of each call (e.g. ``temperature``, ``seed``),
            in the order of ``calls``.

    Raises:
        ScriptedRepliesExhausted: on a call past the end of the script (without ``default_reply``).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    replies: list[Any] = Field(default_factory=list)
    default_reply: str | None = None
    model_name: str = "scripted"
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    call_kwargs: list[dict[str, Any]] = Field(default_factory=list)
    bound_tools: list[Any] = Field(default_factory=list)
    _index: int = PrivateAttr(default=0)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "codur-scripted"

    @property
    def remaining(self) -> int:
        """Replies not yet played."""
        return len(self.replies) - self._index

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        """Record the tools (as a real model would receive them) and return self."""
        self.bound_tools = list(tools)
        return self

    def _next_reply(self, messages: list[BaseMessage], kwargs: dict[str, Any] | None = None) -> AIMessage:
        with self._lock:
            self.calls.append(list(messages))
            self.call_kwargs.append(dict(kwargs or {}))
            if self._index < len(self.replies):
                reply = self.replies[self._index]
                self._index += 1
            elif self.default_reply is not None:
                reply = self.default_reply
            else:
                raise ScriptedRepliesExhausted(
                    f"scripted model has no reply left (played {self._index})"
                )
        if isinstance(reply, BaseException):
            raise reply
        if callable(reply) and not isinstance(reply, AIMessage):
            reply = reply(list(messages))
        message = AIMessage(content=reply) if isinstance(reply, str) else reply.model_copy()
        if not message.usage_metadata:
            prompt_tokens = sum(len(str(m.content)) for m in messages) // 4 + 1
            out_tokens = len(str(message.content)) // 4 + 1
            message.usage_metadata = {
                "input_tokens": prompt_tokens,
                "output_tokens": out_tokens,
                "total_tokens": prompt_tokens + out_tokens,
            }
        return message

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next_reply(messages, kwargs))])


#: What ``MockProvider()`` without a script answers to every call.
GREETING = "Hello! I am codur's MockProvider: no scripted replies were given, so this is all I say."


class MockProvider:
    """A model provider that plays scripted replies: for examples, tests and dry runs of the engine.

    Args:
        replies: the actor's script (and every role's without its own), one reply per model call:
            a string, an ``AIMessage`` (e.g. with ``tool_calls``), an exception instance to raise,
            or a callable of the prompt messages.
        roles: scripts for other roles, e.g. ``{"planner": [...], "critic": [...]}``.

    ``MockProvider()`` with no script at all answers every call with :data:`GREETING` (a run
    on it ends as its task allows: a question is answered, a change finds no edit). Each role
    gets its own :class:`ScriptedChatModel` (read ``provider.model("actor").calls`` for the
    prompts it received); missing roles use the actor's. Its ledger records every call.
    """

    def __init__(self, replies: Sequence[Reply] = (), *, roles: dict[str, Sequence[Reply]] | None = None) -> None:
        from codur.llm.factory import StaticModelProvider

        default = GREETING if not replies and not roles else None
        models = {"actor": ScriptedChatModel(replies=list(replies), default_reply=default)}
        models.update({role: ScriptedChatModel(replies=list(r)) for role, r in (roles or {}).items()})
        self._static = StaticModelProvider(models)
        self.ledger = self._static.ledger

    def models_for(self, role: str) -> list[BaseChatModel]:
        """The scripted model of ``role`` (the actor's when the role has none)."""
        return self._static.models_for(role)

    def has_role(self, role: str) -> bool:
        """Whether a script was given for ``role`` (``roles=``; the actor's always is)."""
        return self._static.has_role(role)

    def model(self, role: str = "actor") -> ScriptedChatModel:
        """The scripted model of ``role``, to read what it was asked."""
        return self._static.models_for(role)[0]  # type: ignore[return-value]
