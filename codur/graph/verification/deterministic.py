"""The deterministic verifier: codur's own checks, no model. The fallback of the critic
model and the ground truth over it (failing tests and syntax errors cannot be argued away).

Strategies, inferred from the repo:

- ``tests``: the repo has pytest tests → run the whole suite; passed = every test passes.
  ``hybrid`` adds the syntax check of the changed files.
- ``entry_points``: no tests but entry points (the repo's ``main.py`` / ``app.py`` at its root,
  guarded or not; ``if __name__ == "__main__"`` modules; ``__main__.py``) → run them in the
  sandbox with a time limit as the run_python_file tool does (a package's ``__main__.py`` with ``-m``);
  passed = exit code 0 and, when the task quotes an expected output, that output; when the
  repo has an ``expected.txt`` at its root, one entry point's stdout must be exactly it (line
  by line, trailing spaces aside: :func:`codur.tools.output_match.first_difference`), and a
  run that changed ``expected.txt`` does not pass.
- ``static``: neither → compile every changed Python file; passed = no syntax error. For a fix
  or feature task (code_fix, code_generation) an unchanged repo does not pass.
- ``answer``: a question (EXPLANATION / CODE_ANALYSIS) with no change → passed = the agent
  ended its loop with an answer (``done`` or a final reply), not through a limit, a repeat
  stop or a dry run, and the answer is not empty.
"""

from __future__ import annotations

import re

from codur.core.pyast import parse_ast
from codur.graph.verification.verdict import Evidence, Verdict
from codur.testing.ids import is_test_file
from codur.testing.report import TestRun
from codur.tools.context import ToolContext
from codur.tools.executor import ToolExecutor
from codur.tools.output_match import first_difference
from codur.tools.python import run_entry_point
from codur.tools.registry import TaskType
from codur.tools.testing import run_tests

QUESTION_TASKS = {TaskType.EXPLANATION.value, TaskType.CODE_ANALYSIS.value}
CHANGE_TASKS = {TaskType.CODE_FIX.value, TaskType.CODE_GENERATION.value}  # verified only by a change
# How an agent's loop may end with an answer: ``done``, a reply without a tool call, or an
# agent that does not report how it ended (a command-line agent: "").
ANSWER_ENDINGS = {"done", "no_tool_call", ""}
EXPECTED_FILE = "expected.txt"  # at the repo's root: the output an entry point must print
ENTRY_SCRIPTS = ("main.py", "app.py")  # at the repo's root: run as scripts, with or without a __main__ guard
ENTRY_TIMEOUT_S = 30.0  # one entry point's run, seconds (its process group is killed past it)


def entry_points(ctx: ToolContext, limit: int = 3) -> list[str]:
    """Repo-relative paths of the entry points, at most ``limit``: the root's ``main.py`` and
    ``app.py`` first (a plain script is an entry point too), then modules with a ``__main__``
    guard and ``__main__.py`` files (tests excluded)."""
    out = [name for name in ENTRY_SCRIPTS if (ctx.root / name).is_file()]
    for p in ctx.walk("."):
        if ctx.rel(p) in out:
            continue
        if p.suffix != ".py" or is_test_file(ctx.rel(p)):
            continue
        try:
            text = p.read_text(errors="replace")
        except OSError:
            continue
        if p.name == "__main__.py" or re.search(r"^if __name__ == ['\"]__main__['\"]:", text, re.MULTILINE):
            out.append(ctx.rel(p))
    return out[:limit]


def expected_output(task: str) -> str | None:
    """The output the task quotes (``print "hello"``, ``outputs 'ok'``), or None."""
    m = re.search(r"(?:print|output|show)s?\s+[\"'`](.+?)[\"'`]", task, re.IGNORECASE)
    return m.group(1) if m else None


def expected_file_check(ctx: ToolContext, stdout: dict[str, str], changed: list[str]) -> Evidence | None:
    """Compare the entry points' stdout (repo-relative path -> text) with the repo's ``expected.txt``.

    Returns None when the repo has no ``expected.txt``; else an evidence entry, ok when one entry
    point printed exactly it and the run did not change it.
    """
    path = ctx.root / EXPECTED_FILE
    if not path.is_file():
        return None
    command = f"compare with {EXPECTED_FILE}"
    if EXPECTED_FILE in changed:
        return Evidence(command=command, output=f"{EXPECTED_FILE} was changed by the run", ok=False)
    wanted = path.read_text(errors="replace")
    differences = {rel: first_difference(out, wanted) for rel, out in stdout.items()}
    match = next((rel for rel, difference in differences.items() if difference is None), None)
    if match is not None:
        return Evidence(command=command, output=f"{match} prints it", ok=True)
    return Evidence(command=command, output="; ".join(f"{rel}: {d}" for rel, d in differences.items())[:1500],
                    ok=False)


def syntax_checks(ctx: ToolContext, files: list[str]) -> list[Evidence]:
    """One evidence entry per changed .py file that still exists: does it parse?"""
    evidence = []
    for rel in files:
        if not rel.endswith(".py") or not (ctx.root / rel).is_file():
            continue
        try:
            parse_ast((ctx.root / rel).read_text(errors="replace"), rel)
            evidence.append(Evidence(command=f"syntax check {rel}", output="ok", ok=True))
        except SyntaxError as exc:
            evidence.append(Evidence(command=f"syntax check {rel}", output=f"line {exc.lineno}: {exc.msg}", ok=False))
    return evidence


def answer_verdict(answer: str, ended: str) -> Verdict:
    """A question's verdict: an answer counts only when the loop ended with one.

    Args:
        answer: the agent's final text.
        ended: how its loop ended ("done", "no_tool_call", "max_iterations", "repeating",
            "stopped: <limit>", "dry_run"; "" when the agent does not say).
    """
    if ended not in ANSWER_ENDINGS:
        why = "no agent was called (dry run)" if ended == "dry_run" else f"agent ended: {ended}"
        return Verdict(passed=False, strategy="answer", evidence=[Evidence(command="answer", output=answer[:500],
                                                                           ok=False)],
                       reasoning=f"no answer: {why}", signature=f"no_answer: {why}")
    ok = bool(answer.strip())
    return Verdict(passed=ok, strategy="answer", evidence=[Evidence(command="answer", output=answer[:500], ok=ok)],
                   reasoning="an answer was given" if ok else "no answer: the agent's answer is empty",
                   signature="" if ok else "no_answer: empty")


def tests_verdict(report: TestRun, static: list[Evidence]) -> Verdict:
    """The suite's verdict (``hybrid`` when changed files were syntax-checked too)."""
    bad_static = [e for e in static if not e.ok]
    passed = report.ok and not bad_static
    evidence = [Evidence(command="pytest", output=report.render(max_tracebacks=3, max_chars=1500), ok=report.ok)]
    return Verdict(passed=passed, strategy="hybrid" if static else "tests", evidence=evidence + static,
                   reasoning=f"pytest: {report.summary}" + (f"; {len(bad_static)} syntax errors" if bad_static else ""),
                   signature="" if passed else report.signature(), failing_tests=report.failed,
                   passed_tests=len(report.passed))


def verify_repo(ctx: ToolContext | ToolExecutor, *, task: str, task_type: str, changed: list[str], has_tests: bool,
                answer: str = "", ended: str = "") -> Verdict:
    """Infer the strategy and run it; no model involved.

    Args:
        ctx: the run's ToolExecutor (the tests then run through its test tool,
            :meth:`ToolExecutor.run_tests`: policy, sandbox, journal), or a bare tool context.
        task: the user's task (an expected output may be quoted in it; the repo's ``expected.txt``
            is compared too, see the module docstring).
        task_type: the TaskType value.
        changed: repo-relative paths the run changed.
        has_tests: observe found pytest tests.
        answer / ended: a question's answer and how the agent's loop ended (see :func:`answer_verdict`).
    """
    if task_type in QUESTION_TASKS and not changed:
        return answer_verdict(answer, ended)
    executor = ctx if isinstance(ctx, ToolExecutor) else None
    ctx = executor.ctx if executor is not None else ctx
    static = syntax_checks(ctx, changed)
    if has_tests:
        return tests_verdict(executor.run_tests(caller="verify") if executor else run_tests(ctx), static)
    entries = entry_points(ctx)
    if entries:
        expected = expected_output(task)
        evidence, stdout = [], {}
        for rel in entries:
            proc = run_entry_point(ctx, rel, timeout_s=ENTRY_TIMEOUT_S)
            ok = proc.exit_code == 0 and (expected is None or expected in proc.stdout)
            said = (proc.stdout + proc.stderr)[-1500:]
            if proc.timed_out:
                said += f"\n(killed: still running after {ENTRY_TIMEOUT_S:g} s)"
            evidence.append(Evidence(command=f"python {rel}", output=said, ok=ok))
            stdout[rel] = proc.stdout
        if (compared := expected_file_check(ctx, stdout, changed)) is not None:
            evidence.append(compared)
        passed = all(e.ok for e in evidence + static)
        return Verdict(passed=passed, strategy="entry_points", evidence=evidence + static,
                       reasoning="entry points ran" if passed else
                       "failed: " + ", ".join(e.command for e in evidence + static if not e.ok),
                       signature="" if passed else "\n".join(e.output[-200:] for e in evidence if not e.ok))
    if task_type in CHANGE_TASKS and not changed:
        return Verdict(passed=False, strategy="static",
                       evidence=[Evidence(command="changed files", output="no file was changed", ok=False)],
                       reasoning="nothing changed, and the repo has no tests or entry points to show the task was "
                                 "already done: a static check of an unchanged repo verifies nothing",
                       signature="no change")
    passed = all(e.ok for e in static)
    return Verdict(passed=passed, strategy="static", evidence=static,
                   reasoning="changed files compile" if passed else "syntax errors",
                   signature="" if passed else "\n".join(e.output for e in static if not e.ok))
