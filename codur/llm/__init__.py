"""Models: the factory, the embedded local model, the scripted test model, the Executor
(the agent runner with retries)."""

from codur.llm.agent_runner import Executor
from codur.llm.factory import (
    ConfigModelProvider,
    ModelProvider,
    StaticModelProvider,
    get_chat_model,
)
from codur.llm.scripted import ScriptedChatModel, ScriptedRepliesExhausted

__all__ = [
    "ConfigModelProvider",
    "Executor",
    "ModelProvider",
    "ScriptedChatModel",
    "ScriptedRepliesExhausted",
    "StaticModelProvider",
    "get_chat_model",
]
