"""Recursive language models (Zhang & Khattab, "Recursive Language Models", 2025).

Answers questions over inputs far larger than a model's context: the input is the
variable ``context`` of a sandboxed Python REPL; the model writes code to inspect
it and calls models on the pieces (llm_query, rlm_query, batch_rlm_query).

    from codur.rlm import RLMEngine, RLMConfig
    result = RLMEngine(chat_model, RLMConfig(max_iterations=4)).run("Where is X?", big_text)
    result.answer, result.answer_source, result.trace

Modules: parser (reply → code blocks, FINAL), budget, sandbox (parent side) and
worker (inside the sandbox), bridge, helpers, prompts, trace, engine, command (CLI).
"""

from codur.rlm.budget import Budget, BudgetExceeded, BudgetLimits, Usage, price_for
from codur.rlm.engine import FORCED_WARNING, RLMConfig, RLMEngine, RLMResult
from codur.rlm.parser import FinalAnswer, ParsedResponse, parse_response
from codur.rlm.sandbox import Sandbox, SandboxError, SandboxLimits
from codur.rlm.trace import CodeExecution, Iteration, RLMTrace, SubCall

__all__ = [
    "FORCED_WARNING", "Budget", "BudgetExceeded", "BudgetLimits", "CodeExecution", "FinalAnswer", "Iteration",
    "ParsedResponse", "RLMConfig", "RLMEngine", "RLMResult", "RLMTrace", "Sandbox", "SandboxError",
    "SandboxLimits", "SubCall", "Usage", "parse_response", "price_for",
]
