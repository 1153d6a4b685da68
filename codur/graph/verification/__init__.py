"""The verification agent (critic role): is the task done? Modules by responsibility:

- :mod:`.verdict`: the structured verdict (pydantic) and reading it from a reply;
- :mod:`.deterministic`: codur's own checks (tests, entry points, static, answer), no model;
- :mod:`.llm`: the critic model's tool loop that picks the strategy and runs the checks;
- :mod:`.judge`: the model's verdict combined with the deterministic one (fallback, overrule).

The verify node (:mod:`codur.graph.execution.verification_agent`) decides which runs.
"""
