"""The verification agent (critic role): how to verify is inferred from the repo itself.

Strategies:
- ``tests``: the repo has pytest tests → run the whole suite; passed = every test passes.
- ``execution``: no tests but entry points (``if __name__ == "__main__"``, ``__main__.py``)
  → run them; passed = exit code 0 and, when the task quotes an expected output, that output.
- ``static``: neither → compile every changed Python file and import nothing; passed = no syntax error.
  For a fix or feature task (code_fix, code_generation) an unchanged repo does not pass: a
  static check of nothing verifies nothing.
- ``answer``: a question (EXPLANATION / CODE_ANALYSIS) with no change → passed = a non-empty answer.
``hybrid`` adds the static check of changed files to the tests. No file-name heuristics
(main.py, app.py, expected.txt). When the verdict fails and the critic role is enabled,
the critic model writes the reasoning and suggestions from the evidence.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import asdict, dataclass, field

from langchain_core.messages import HumanMessage, SystemMessage

from codur.graph.prompts import build_system_prompt
from codur.llm.replies import json_objects
from codur.tools.context import ToolContext
from codur.tools.registry import TaskType
from codur.tools.testing import run_tests

QUESTION_TASKS = {TaskType.EXPLANATION.value, TaskType.CODE_ANALYSIS.value}
CHANGE_TASKS = {TaskType.CODE_FIX.value, TaskType.CODE_GENERATION.value}  # verified only by a change


@dataclass
class Verdict:
    """The critic's structured verdict (kept in state as ``verification``).

    Attributes:
        passed: the change is verified.
        strategy: tests | execution | static | answer | hybrid.
        evidence: [{"command": ..., "output": ..., "ok": bool}].
        reasoning: why it passed or failed.
        suggestions: next steps for the agent.
        signature: a stable key of the failure (same failure twice → stuck).
        failing_tests: test ids still failing.
        passed_tests: how many tests passed.
    """

    passed: bool
    strategy: str
    evidence: list[dict] = field(default_factory=list)
    reasoning: str = ""
    suggestions: list[str] = field(default_factory=list)
    signature: str = ""
    failing_tests: list[str] = field(default_factory=list)
    passed_tests: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


def is_test_file(path: str) -> bool:
    """test_*.py, *_test.py, conftest.py, or anything under a tests/ folder."""
    name = path.rsplit("/", 1)[-1]
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py" or "/tests/" in f"/{path}"


def _entry_points(ctx: ToolContext) -> list[str]:
    out = []
    for p in ctx.walk("."):
        if p.suffix != ".py" or is_test_file(ctx.rel(p)):
            continue
        try:
            text = p.read_text(errors="replace")
        except OSError:
            continue
        if p.name == "__main__.py" or re.search(r"^if __name__ == ['\"]__main__['\"]:", text, re.MULTILINE):
            out.append(ctx.rel(p))
    return out[:3]


def _expected_output(task: str) -> str | None:
    m = re.search(r"(?:print|output|show)s?\s+[\"'`](.+?)[\"'`]", task, re.IGNORECASE)
    return m.group(1) if m else None


def _static(ctx: ToolContext, files: list[str]) -> list[dict]:
    evidence = []
    for rel in files:
        if not rel.endswith(".py") or not (ctx.root / rel).is_file():
            continue
        try:
            ast.parse((ctx.root / rel).read_text(errors="replace"), rel)
            evidence.append({"command": f"syntax check {rel}", "output": "ok", "ok": True})
        except SyntaxError as exc:
            evidence.append({"command": f"syntax check {rel}", "output": f"line {exc.lineno}: {exc.msg}", "ok": False})
    return evidence


def verify_repo(ctx: ToolContext, *, task: str, task_type: str, changed: list[str], has_tests: bool,
                answer: str = "") -> Verdict:
    """Infer the strategy and run it; no model involved."""
    if task_type in QUESTION_TASKS and not changed:
        ok = bool(answer.strip())
        return Verdict(ok, "answer", [{"command": "answer", "output": answer[:500], "ok": ok}],
                       "an answer was given" if ok else "the agent gave no answer",
                       signature="" if ok else "no answer")
    static = _static(ctx, changed)
    if has_tests:
        report = run_tests(ctx)
        evidence = [{"command": "pytest", "output": report.render(max_tracebacks=3, max_chars=1500), "ok": report.ok}]
        bad_static = [e for e in static if not e["ok"]]
        passed = report.ok and not bad_static
        return Verdict(passed, "hybrid" if static else "tests", evidence + static,
                       f"pytest: {report.summary}" + (f"; {len(bad_static)} syntax errors" if bad_static else ""),
                       signature="" if passed else report.signature(), failing_tests=report.failed,
                       passed_tests=len(report.passed))
    entries = _entry_points(ctx)
    if entries:
        expected = _expected_output(task)
        evidence = []
        for rel in entries:
            proc = ctx.run([sys.executable, rel], timeout_s=30)
            out = (proc.stdout + proc.stderr)[-1500:]
            ok = proc.exit_code == 0 and (expected is None or expected in proc.stdout)
            evidence.append({"command": f"python {rel}", "output": out, "ok": ok})
        passed = all(e["ok"] for e in evidence + static)
        why = "entry points ran" if passed else "an entry point failed"
        return Verdict(passed, "execution", evidence + static, why,
                       signature="" if passed else "\n".join(e["output"][-200:] for e in evidence if not e["ok"]))
    if task_type in CHANGE_TASKS and not changed:
        return Verdict(False, "static", [{"command": "changed files", "output": "no file was changed", "ok": False}],
                       "nothing changed, and the repo has no tests or entry points to show the task was already "
                       "done: a static check of an unchanged repo verifies nothing", signature="no change")
    passed = all(e["ok"] for e in static)
    return Verdict(passed, "static", static, "changed files compile" if passed else "syntax errors",
                   signature="" if passed else "\n".join(e["output"] for e in static if not e["ok"]))


def critique(model, verdict: Verdict, task: str) -> tuple[Verdict, int]:
    """Ask the critic model for reasoning and suggestions on a failed verdict; returns tokens used."""
    system, _ = build_system_prompt("critic", TaskType.RESULT_VERIFICATION)
    evidence = "\n".join(f"$ {e['command']}\n{e['output'][:800]}" for e in verdict.evidence if not e["ok"])
    reply = model.invoke([SystemMessage(system), HumanMessage(f"Task: {task}\nFailed checks:\n{evidence}\nJSON only.")])
    objects = json_objects(str(reply.content))
    if objects:
        verdict.reasoning = str(objects[0].get("reasoning") or verdict.reasoning)[:600]
        verdict.suggestions = [str(s)[:300] for s in objects[0].get("suggestions", [])][:3]
    return verdict, (reply.usage_metadata or {}).get("total_tokens", 0)
