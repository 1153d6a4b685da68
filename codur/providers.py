"""Model providers under the engine document's module name: what gives each role (planner, actor,
critic) its chat models. They live in :mod:`codur.llm`; this module re-exports them."""

from codur.llm.factory import ConfigModelProvider, ModelProvider, StaticModelProvider
from codur.llm.scripted import MockProvider

__all__ = ["ConfigModelProvider", "MockProvider", "ModelProvider", "StaticModelProvider"]
