"""Recursive language models (Zhang, Kraska & Khattab, "Recursive Language Models", 2025).

Answers questions over inputs far larger than a model's context: the input is the
variable ``context`` of a sandboxed Python REPL; the model writes code to inspect
it and calls models on the pieces (llm_query, rlm_query, batch_rlm_query).

    from codur.rlm import RLMEngine, RLMConfig
    result = RLMEngine(chat_model, RLMConfig(max_iterations=4)).run("Where is X?", big_text)
    result.answer, result.answer_source, result.trace

Modules: parser (reply → code blocks, FINAL), budget, sandbox (parent side) and
worker (inside the sandbox), bridge, helpers, prompts, trace, config (RLMConfig), engine (the
REPL loop), answers (the answer check and extraction calls), view (what the model is shown of
a turn), finals (whether a FINAL is taken), vote, model (the configured actor model). The
command ``codur rlm`` is :mod:`codur.commands.rlm`.
"""

from __future__ import annotations

import importlib
from typing import Any

# Loaded on first use: `import codur.rlm` stays light.
_EXPORTS = {
    "Budget": "budget", "BudgetExceeded": "budget", "BudgetLimits": "budget", "Usage": "budget",
    "FORCED_WARNING": "engine", "RLMConfig": "config", "RLMEngine": "engine",
    "RLMResult": "engine", "FinalAnswer": "parser", "ParsedResponse": "parser", "parse_response": "parser",
    "Sandbox": "sandbox", "SandboxError": "sandbox", "SandboxLimits": "sandbox", "CodeExecution": "trace",
    "Iteration": "trace", "RLMTrace": "trace", "SubCall": "trace",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'codur.rlm' has no attribute {name!r}")
    return getattr(importlib.import_module(f"codur.rlm.{_EXPORTS[name]}"), name)
