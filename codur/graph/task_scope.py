"""What a task asks for, which failing tests belong to it, and whether its success was checked.

A ``code_generation`` task ("add a function word_count(text) to textkit/wrap.py") is done
when what it names exists, not when the suite passes: a repo may have a failing test that
has nothing to do with the task, and mutation search "fixing" that test wrote no feature.

- **Requested change** (:func:`requested`, :func:`missing`): the functions and classes the
  task names (``word_count(``, ``function word_count``, ``class Parser``), its flags
  (``--verbose``) and files (``textkit/wrap.py``); after the run each must exist: a ``def``
  or ``class`` of that name in a source file of the repo's own (not a test), the flag's text
  in one, the file on disk.
- **The task's tests**: the first plan decides which failing tests are about the task, for
  every kind of task (:class:`codur.graph.records.TaskScope`, by the rules of
  :func:`codur.graph.planning.task.relate`, or the planner model when they cannot tell).
  Without that decision (a node called alone), :func:`task_tests` and :func:`scope_test_files`
  say it: the failing tests the task names, those in test files added or changed in the
  working tree against git HEAD when the run started (:func:`changed_test_files`), written by
  the run, or using a name the task asks for (``word_count``). Any other test that failed
  before the run is *unrelated*: the patch pipeline is not run for it, verification does
  not hold it against the task, and the run's summary names it (:func:`unrelated_line`).
- **Verified means the behaviour was checked** (:func:`behaviour_checked`): a fix or feature
  task whose verdict passes without a test that exercises what it asked gets
  ``Verdict.unverified``; the run then ends ``success`` with reason ``unverified``. A task that
  asks for an edit and changed nothing fails (:func:`no_change`).
- **The change's footprint and anti-patterns** are judged in :mod:`codur.graph.change_verdict`.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from codur.core.pyast import parse_ast
from codur.graph.planning.task import Requested, read_task, requested
from codur.graph.state import CodurState, observation_of, scope_of
from codur.graph.verification.deterministic import expected_output
from codur.graph.verification.verdict import Evidence, Verdict
from codur.testing.ids import file_of, is_test_file
from codur.tools.context import ToolContext, ToolError
from codur.tools.git import git

if TYPE_CHECKING:
    from codur.graph.context import Run

def defined_names(ctx: ToolContext) -> set[str]:
    """The functions and classes defined in the repo's own source files (tests excluded)."""
    return _defined(ctx)[0]


def _defined(ctx: ToolContext) -> tuple[set[str], list[str]]:
    defined: set[str] = set()
    texts: list[str] = []
    for path in ctx.walk("."):
        rel = ctx.rel(path)
        if path.suffix != ".py" or is_test_file(rel):
            continue
        try:
            text = ctx.read_text(rel)
            tree = parse_ast(text)
        except (ToolError, SyntaxError, ValueError):
            continue
        texts.append(text)
        defined |= {n.name for n in ast.walk(tree)
                    if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    return defined, texts


def missing(ctx: ToolContext, asked: Requested) -> list[str]:
    """What of ``asked`` does not exist in the repo now, in words ("function word_count",
    "flag --verbose", "file textkit/wrap.py"); [] when everything does."""
    defined, texts = _defined(ctx)
    out = [f"function {n}" for n in asked.names if n not in defined]
    out += [f"flag {f}" for f in asked.flags if not any(f in t for t in texts)]
    return out + [f"file {f}" for f in asked.files if not (ctx.root / f).exists()]


def changed_test_files(ctx: ToolContext) -> list[str]:
    """Test files added or changed in the working tree against git HEAD (staged or not) and
    untracked ones, repo-relative; [] when the repo is no git repository."""
    out: list[str] = []
    for args in (("diff", "--name-only", "--relative", "HEAD", "--", "."),
                 ("ls-files", "--others", "--exclude-standard", "--", ".")):
        try:
            out += git(ctx, *args).splitlines()
        except ToolError:  # not a git repository, or no commit yet
            continue
    return sorted({p for p in out if p.endswith(".py") and is_test_file(p)})


def task_tests(task: str, failing: list[str], test_files: list[str]) -> list[str]:
    """The ids of ``failing`` that belong to the task: named by it (the id, the test's name or
    its file), or in one of ``test_files`` (changed against HEAD, or written by the run)."""
    words = set(re.findall(r"[\w./:\[\]-]+", task))
    out = []
    for test_id in failing:
        path = file_of(test_id)
        name = test_id.split("::")[-1].split("[")[0]
        if path in test_files or words & {test_id, path, path.rsplit("/", 1)[-1], name}:
            out.append(test_id)
    return out


def scope_test_files(state: CodurState, ctx: Run) -> list[str]:
    """The test files whose tests belong to the task: changed against HEAD when the run started
    (observe's), written by this run (the change journal's), and the failing tests' files that
    use a name the task asks for (a test of the feature, in a repo without git too)."""
    tools = ctx.tools
    obs = observation_of(state)
    written = [f for f in tools.journal.changed_files if is_test_file(f)]
    names = requested(state.get("task", "")).names
    using = []
    for rel in dict.fromkeys(file_of(t) for t in (obs.tests.failed if obs.tests else [])):
        try:
            words = set(re.findall(r"\w+", tools.ctx.read_text(rel)))
        except ToolError:
            continue
        if words & set(names):
            using.append(rel)
    return list(dict.fromkeys([*obs.changed_tests, *written, *using]))


def unrelated_tests(state: CodurState, ctx: Run) -> list[str]:
    """The tests that failed before the run (observe's) and are not about the task: the plan's
    :class:`codur.graph.records.TaskScope` when it decided, else by :func:`task_tests`."""
    if (scope := scope_of(state)) is not None:
        return list(scope.unrelated)
    tests = observation_of(state).tests
    before = tests.failed if tests else []
    related = set(task_tests(state.get("task", ""), before, scope_test_files(state, ctx)))
    return [t for t in before if t not in related]


def scoped_verdict(state: CodurState, ctx: Run, verdict: Verdict) -> Verdict:
    """``verdict`` as the task is judged: the tests that failed before the run and are not about
    the task (the plan's scope, or observe's ``targets``) are not held against it; a feature
    task (code_generation) fails when what it names does not exist (:func:`feature_verdict`);
    and a fix or feature task that passes is marked ``unverified`` unless a test exercised what
    it asked (:func:`behaviour_checked`), or fails when it changed nothing (an unchanged repo
    whose failing tests are all unrelated proves nothing)."""
    task_type = state.get("task_type")
    tests = observation_of(state).tests
    if task_type == "code_generation":
        out = feature_verdict(verdict, missing(ctx.tools.ctx, requested(state.get("task", ""))),
                              unrelated_tests(state, ctx))
    elif scope_of(state) is not None:
        out = feature_verdict(verdict, [], unrelated_tests(state, ctx))
    elif tests is not None and tests.targets:
        out = feature_verdict(verdict, [], [t for t in tests.failed if t not in tests.targets])
    else:
        out = verdict
    if out.passed and task_type in EDIT_TASKS and not ctx.tools.journal.changed_files:
        return no_change(out, "a refactor, documentation or file task is done by a change")
    if out.passed and task_type == "refactor" and (why := refactor_unchecked(state, ctx)):
        return out.model_copy(update={"unverified": why})
    if not out.passed or task_type not in CHANGE_TASKS:
        return out
    how = behaviour_checked(state, ctx, out)
    if how:
        return out.model_copy(update={"checked": how})
    if not ctx.tools.journal.changed_files:  # nothing changed, and no test the task is about passes now
        return no_change(out, "no test shows the task was already done")
    return out.model_copy(update={"unverified": "no test exercises what the task asks (" + (
        "the tests that pass were passing before the run" if out.strategy in ("tests", "hybrid")
        else f"checked by {out.strategy} only") + ")"})


#: The task types whose success needs a check of the behaviour asked for.
CHANGE_TASKS = ("code_fix", "code_generation")
#: The other task types that ask for an edit: one that changed nothing did not do it (a resumed run
#: whose first start's edit a cancel put back, an agent that only said it was done).
EDIT_TASKS = ("refactor", "documentation", "file_operation")


def no_change(verdict: Verdict, why: str) -> Verdict:
    """``verdict`` (a passed one) failed because no file was changed: signature ``no change``
    (review replans), evidence and reasoning saying so, ``why`` that is no success."""
    out = verdict.model_copy(deep=True)
    out.passed, out.signature = False, "no change"
    out.evidence.append(Evidence(command="changed files", output="no file was changed", ok=False))
    out.reasoning = f"nothing was changed, and {why}; {out.reasoning}"
    return out


def behaviour_checked(state: CodurState, ctx: Run, verdict: Verdict) -> str:
    """How the behaviour the task asks for was checked by ``verdict`` (a passed one), in words;
    "" when it was not. A check is: a test that failed at the start and is about the task
    (the plan's scope, observe's targets) passing now; an entry point's output compared with
    the output the task quotes or the repo's ``expected.txt``. A test that passed before the run
    is no check of the change, whether the task names it ("test_x.py must keep passing") or the
    user edited its file before the run; tests written by the run itself are not a check either
    (the run could write a test its own wrong code passes)."""
    obs = observation_of(state)
    scope = scope_of(state)
    failing_now = set(verdict.failing_tests)
    if verdict.strategy in ("tests", "hybrid"):
        about = list(scope.related) if scope is not None else list(obs.tests.targets if obs.tests else [])
        if scope is None and obs.tests is not None and not about and state.get("task_type") == "code_fix":
            about = list(obs.tests.failed)  # a run without a scope (a node called alone): observe's failures
        if about and not failing_now & set(about) and _checks_named_raise(state.get("task", ""), ctx, about):
            n = len(about)
            return f"{n} failing test{'s' if n > 1 else ''} about the task pass{'es' if n == 1 else ''} now"
        return ""
    if verdict.strategy == "entry_points":
        compared = [e for e in verdict.evidence if e.command.startswith("compare with") and e.ok]
        if compared or expected_output(state.get("task", "")) is not None:
            return "the entry point printed the expected output"
    return ""


#: An exception the task asks the code to raise: "make area() raise ValueError when a side is negative".
_RAISE = re.compile(r"\braises?\s+(?:an?\s+)?([A-Z]\w*(?:Error|Exception|Warning))\b")


def _checks_named_raise(task: str, ctx: Run, tests: list[str]) -> bool:
    """False when ``task`` asks for an exception to be raised and none of ``tests`` (node ids)
    names it in its own body: those tests check something else of the code (the embedded planner
    related ``test_area_of_rectangle`` to "make area() raise ValueError...", and a mutant that
    fixed the area passed it), so they are no check of what was asked. True otherwise."""
    match = _RAISE.search(task)
    if match is None:
        return True
    for test in tests:
        path, _, name = test.partition("::")
        file = ctx.tools.root / path
        try:
            tree = parse_ast(file.read_bytes()) if file.is_file() else None
        except (SyntaxError, ValueError):
            tree = None
        name = name.split("::")[-1].split("[")[0]
        bodies = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                  and n.name == name] if tree is not None else []
        if any(re.search(rf"\b{match.group(1)}\b", body) for body in bodies):
            return True
    return False


#: A refactor's wording that asks for a behaviour too ("simplify summarize() and make it also return the mean").
_BEHAVIOUR = re.compile(r"\b(?:also|make (?:it|them)|so that|returns?|raises?|should|must)\b", re.IGNORECASE)


def refactor_unchecked(state: CodurState, ctx: Run) -> str:
    """What a passed refactor's tests did not check, in words ("" when they did): the task asks
    for a behaviour too (a word of :data:`_BEHAVIOUR`, or another kind of wording); a function
    or class the change removed is still used by a file of the repo (a rename that left a
    caller behind); no source file changed; no test file imports a changed module (nothing ran
    the changed code)."""
    task = state.get("task", "")
    if _BEHAVIOUR.search(task) or len(read_task(task).kinds) > 1:
        return "the task asks for a change of behaviour, and no test checks it"
    tools = ctx.tools
    originals = tools.journal.originals()
    sources = [f for f in tools.journal.changed_files if f.endswith(".py") and not is_test_file(f)]
    removed: set[str] = set()
    for rel in sources:
        before = _names(originals.get(rel))
        after = _names((tools.root / rel).read_bytes() if (tools.root / rel).is_file() else None)
        removed |= before - after
    users, tests = _users(ctx.tools.ctx, removed, {f.removesuffix(".py").rsplit("/", 1)[-1] for f in sources})
    if not sources:
        return "no source file was changed"
    if users:
        return f"{', '.join(sorted(removed)[:3])} removed, still used by {', '.join(users[:3])}"
    if not tests:
        return f"no test imports the changed code ({', '.join(sources[:3])})"
    return ""


def _users(ctx: ToolContext, removed: set[str], modules: set[str]) -> tuple[list[str], list[str]]:
    """The repo's Python files that use a name of ``removed``, and its test files that import
    one of ``modules`` (module base names)."""
    users, tests = [], []
    for path in ctx.walk("."):
        rel = ctx.rel(path)
        if path.suffix != ".py":
            continue
        try:
            words = set(re.findall(r"\w+", ctx.read_text(rel)))
        except ToolError:
            continue
        if words & removed:
            users.append(rel)
        if is_test_file(rel) and words & modules and words & {"import", "from"}:
            tests.append(rel)
    return users, tests


def _names(data: bytes | None) -> set[str]:
    """The top-level functions and classes of a module's source (set() when it does not parse)."""
    try:
        tree = parse_ast((data or b"").decode("utf-8", "replace"))
    except (SyntaxError, ValueError):
        return set()
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}


def unrelated_line(tests: list[str], shown: int = 3) -> str:
    """The summary's line for failing tests not related to the task ("" for none)."""
    if not tests:
        return ""
    more = f" (and {len(tests) - shown} more)" if len(tests) > shown else ""
    noun = "test" if len(tests) == 1 else "tests"
    return f"{len(tests)} failing {noun} not related to the task: {', '.join(tests[:shown])}{more}"


def feature_verdict(verdict: Verdict, absent: list[str], unrelated: list[str]) -> Verdict:
    """A feature task's verdict: the suite's, with the ``unrelated`` tests (they failed before
    the run and do not belong to the task) not held against it, and failed when something the
    task asked for is ``absent`` (see :func:`missing`)."""
    out = verdict.model_copy(deep=True)
    ignored = [t for t in out.failing_tests if t in unrelated]
    if ignored and out.strategy in ("tests", "hybrid") and not out.passed:
        others = [t for t in out.failing_tests if t not in ignored]
        if not others and all(e.ok for e in out.evidence if e.command != "pytest"):
            out.passed, out.signature = True, ""
            out.reasoning += f"; {unrelated_line(ignored)} (they failed before the run)"
    out.ignored_tests = ignored
    if absent:
        what = ", ".join(absent)
        out.passed = False
        out.evidence.append(Evidence(command="requested change", output=f"not found: {what}", ok=False))
        out.reasoning = f"the task asked for {what}, which does not exist; {out.reasoning}"
        out.signature = f"missing: {what}\n{out.signature}".strip()
    return out
