"""observe (engine state Observe): what the repo looks like and which tests fail, before any plan.

Besides the file list and the test run, it collects the source of the repo modules
the failing tests import (when they are small), so the agent's first prompt already
holds the code under test: a small model then edits in its first reply instead of
spending its iterations reading files.
"""

from __future__ import annotations

from codur.core.contracts import RunStatus
from codur.core.events import emit
from codur.core.events.tests import TestsCommand, TestsOutsideSuite, TestsSetupFailed
from codur.graph.context import Run
from codur.graph.nodes import node
from codur.graph.records import MAX_FAILED_IDS, Observation, TestObservation, kept_run
from codur.graph.state import CodurState
from codur.graph.task_scope import changed_test_files
from codur.memory import recall, tolerant
from codur.testing.ids import file_of, is_test_file
from codur.testing.report import run_of, setup_problem
from codur.testing.suite import suite_of
from codur.tools.context import ToolContext, ToolError
from codur.validate.localize import aimed_at
from codur.validate.selection import bare_test_names, imported_modules, named_tests

MAX_FILES = 40
MAX_SOURCE_LINES = 160


def has_tests(files: list[str]) -> bool:
    """True when the repo has pytest-style test files."""
    return any(is_test_file(f) and f.rsplit("/", 1)[-1] != "conftest.py" for f in files)


def module_file(ctx: ToolContext, files: list[str], module: str) -> str | None:
    """The repo file defining ``module`` (``pkg/mod.py``, ``src/pkg/mod.py``, ``pkg/__init__.py``)."""
    base = module.replace(".", "/")
    for candidate in (f"{base}.py", f"src/{base}.py", f"{base}/__init__.py", f"src/{base}/__init__.py"):
        if candidate in files:
            return candidate
    return None


def sources_under_test(ctx: ToolContext, files: list[str], failing: list[str]) -> dict[str, str]:
    """Numbered source of the repo modules imported by the failing tests' files (≤160 lines in all)."""
    out: dict[str, str] = {}
    budget = MAX_SOURCE_LINES
    for test_file in dict.fromkeys(file_of(t) for t in failing):
        try:
            modules = imported_modules(ctx.read_text(test_file))
        except (ToolError, SyntaxError):
            continue
        for module in modules:
            rel = module_file(ctx, files, module)
            if not rel or rel in out or is_test_file(rel):
                continue
            try:
                lines = ctx.read_text(rel).splitlines()
            except ToolError as exc:  # undecodable (no declared coding), a FIFO...: a note, not an error
                out[rel] = f"(not shown: {exc})"
                continue
            if len(lines) > budget:
                continue
            budget -= len(lines)
            out[rel] = "\n".join(f"{i:4d}| {line}" for i, line in enumerate(lines, 1))
    return out


def task_named(task: str, ctx: ToolContext) -> tuple[list[str], list[str]]:
    """The tests the task names (``tests/test_x.py::test_y``, a test file, or a bare
    ``test_y`` the suite has) that the project's own test command collects, and those it
    names that the command does not collect (its configuration excludes them: they are never
    run, and a ``tests.outside_suite`` event says so). ([], []) when it names none."""
    named = named_tests(task, ctx.root)
    bare = [] if named else bare_test_names(task)
    command = ctx.tests()
    if not (named or bare) or not command.is_pytest:
        return named, []
    suite = suite_of(ctx.root, command)
    if suite is None:  # not collected: the named ones run as named
        return named, []
    if bare:
        named = [i for name in bare for i in suite.named(name)]
    kept, outside = suite.split(named)
    if outside:
        emit(TestsOutsideSuite(tests=outside[:20],
                               message="named in the task but not collected by the project's test command "
                                       f"({command.describe(ctx.root)}): not run"))
    return kept, outside


@node("observe")
def observe_node(state: CodurState, ctx: Run) -> dict:
    """Observe the repo (:func:`observe_repo`) and load the session's earlier runs from memory
    (:func:`codur.memory.recall`) into ``session``."""
    update = observe_repo(state, ctx)
    if ctx.memory is not None:
        earlier = tolerant(lambda: recall(ctx.memory, ctx.session_id, current_run=state.get("run_id", "")), [])
        update["session"] = [e.render() for e in earlier]
    return update


def observe_repo(state: CodurState, ctx: Run) -> dict:
    """List the Python files, run the test suite once (when there is one: test files, or the
    setting ``test_command``), read the code under test.

    When the user names tests (setting ``tests``, ``--tests``), only those run: the patch search
    starts from them. When the task names tests (``make tests/test_x.py::test_y pass``, or a bare
    ``test_y`` the project's suite has), the whole suite still runs, so the tests that fail
    before any change are known: the named ones that fail are the run's ``targets`` (the
    patch search starts from them, the agent's prompt shows them), the others are the
    baseline, reported and never required to pass (:func:`codur.graph.task_scope.scoped_verdict`).
    Named tests the project's test command does not collect are said and not run.

    The test command is said once (event ``tests.command``). A suite that cannot even start
    (:func:`codur.testing.report.setup_problem`) ends the run: status error, reason
    ``test_setup_failed``, event ``tests.setup_failed``; a fix would be judged by tests that
    never ran."""
    tools = ctx.tools
    files = [tools.ctx.rel(p) for p in tools.ctx.walk(".") if p.suffix == ".py"]
    # the user's test command is the repo's suite, whatever its files are called (`python check.py`)
    tested = has_tests(files) or ctx.config.test_command is not None
    observation = Observation(files=files[:MAX_FILES], file_count=len(files), has_tests=tested)
    if not observation.has_tests:
        return {"observation": observation}
    observation = observation.model_copy(update={"changed_tests": changed_test_files(tools.ctx)})
    command = tools.ctx.tests()
    said = command.describe(tools.ctx.root)
    emit(TestsCommand(command=said, argv=list(command.argv), origin=command.origin))
    focus = list(ctx.config.tests) if command.passes_args else []
    named, outside = task_named(state["task"], tools.ctx) if command.passes_args and not focus else ([], [])
    try:
        # a hanging test fails at its per-test limit (TEST_TIMEOUT_S) with a traceback into the
        # loop, instead of the whole run timing out with no result
        report = tools.run_tests(focus or None, caller="observe")  # the test tool: policy, sandbox, journal
        problem = setup_problem(report, command, tools.ctx.root, tools.ctx.memory_mb)
    except ToolError as exc:  # the command did not start
        report, problem = run_of(None, -1, summary="did not start"), f"{exc} (tests run with: {said})"
    targets = [t for t in report.failed if aimed_at(t, named)][:MAX_FAILED_IDS] if named else []
    tests = TestObservation(run=kept_run(report, targets), command=said, setup_problem=problem or "",
                            selection=focus, targets=targets, outside_suite=outside)
    # the suspicious lines for the agent's prompt come later: from the patch node's own
    # localization when it runs, else from delegate (one coverage run, not two)
    observation = observation.model_copy(update={
        "tests": tests, "sources": sources_under_test(tools.ctx, files, targets or report.failed)})
    if problem:
        emit(TestsSetupFailed(problem=problem))
        return {"observation": observation, "status": RunStatus.ERROR.value, "reason": "test_setup_failed"}
    return {"observation": observation}
