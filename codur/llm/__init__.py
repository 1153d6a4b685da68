"""Models: the factory, the embedded local model, the scripted test model, the AgentRunner."""

from codur.llm.agent_runner import AgentRunner
from codur.llm.factory import (
    ConfigModelProvider,
    ModelProvider,
    StaticModelProvider,
    get_chat_model,
)
from codur.llm.scripted import ScriptedChatModel, ScriptedRepliesExhausted

__all__ = [
    "ConfigModelProvider",
    "AgentRunner",
    "ModelProvider",
    "ScriptedChatModel",
    "ScriptedRepliesExhausted",
    "StaticModelProvider",
    "get_chat_model",
]
