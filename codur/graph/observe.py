"""observe (engine state Observe): what the repo looks like and which tests fail, before any plan."""

from __future__ import annotations

from codur.graph.context import CodurContext
from codur.graph.nodes import node
from codur.graph.state import CodurState
from codur.tools.testing import run_tests

MAX_FILES = 40


def has_tests(files: list[str]) -> bool:
    """True when the repo has pytest-style test files."""
    return any(f.rsplit("/", 1)[-1].startswith("test_") or f.endswith("_test.py") for f in files)


@node("observe")
def observe_node(state: CodurState, ctx: CodurContext) -> dict:
    """List the Python files and run the test suite once (when there is one)."""
    tools = ctx.tools(state["repo"])
    files = [tools.ctx.rel(p) for p in tools.ctx.walk(".") if p.suffix == ".py"]
    observation: dict = {"files": files[:MAX_FILES], "file_count": len(files), "has_tests": has_tests(files)}
    if observation["has_tests"]:
        report = run_tests(tools.ctx)
        observation["tests"] = {
            "summary": report.summary, "exit_code": report.exit_code, "failed": report.failed[:20],
            "passed_count": len(report.passed), "report": report.render(max_tracebacks=2, max_chars=1200),
        }
    return {"observation": observation}
