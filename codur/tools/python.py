"""Python tools: check syntax, run a file, run the tests, find the entry points.

Code runs with the repo's interpreter (:mod:`codur.testing.command`) in the repo root, through :meth:`ToolContext.run`
(timeout, process-group kill, scrubbed environment).
"""

from __future__ import annotations

import ast
import configparser
import os
import tomllib
from collections.abc import Sequence

from codur.core.pyast import BOM, parse_ast
from codur.sandbox.process import ProcessResult
from codur.tools import snapshot
from codur.tools.context import ToolContext, ToolError
from codur.tools.output_match import diverges, first_difference
from codur.tools.registry import SideEffect, TaskType, tool
from codur.tools.testing import run_tests

T = TaskType
RUN_TASKS = (T.CODE_FIX, T.CODE_GENERATION, T.CODE_VALIDATION, T.RESULT_VERIFICATION)
CHECK_TASKS = (T.CODE_FIX, T.CODE_GENERATION, T.CODE_VALIDATION, T.REFACTOR, T.RESULT_VERIFICATION)


@tool(scenarios=CHECK_TASKS)
def validate_python_syntax(ctx: ToolContext, path: str = ".") -> str:
    """Check that a .py file, or all under a directory, compiles."""
    files = [p for p in ctx.walk(path, visible=True) if p.suffix == ".py"]
    if not files:
        raise ToolError(f"no .py file at {path}")
    errors = []
    for p in files:
        rel = ctx.rel(p)
        try:
            compile(ctx.read_text(rel).removeprefix(BOM), rel, "exec", dont_inherit=True)
        except SyntaxError as exc:  # IndentationError included
            caret = f"\n    {(exc.text or '').rstrip()}\n    {' ' * max((exc.offset or 1) - 1, 0)}^" if exc.text else ""
            errors.append(f"{rel}:{exc.lineno}:{exc.offset}: {type(exc).__name__}: {exc.msg}{caret}")
        except (ToolError, ValueError) as exc:
            errors.append(f"{rel}: {exc}")
    if errors:
        return f"{len(errors)} of {len(files)} files have errors:\n" + "\n".join(errors)
    return "ok: 1 file compiles" if len(files) == 1 else f"ok: {len(files)} files compile"


def python_argv(ctx: ToolContext, path: str) -> list[str]:
    """How a repo's .py file is run: ``python -m package`` for a package's ``__main__.py``,
    else ``python path``.

    Raises:
        ToolError: the path is outside the repo, missing, or not a .py file.
    """
    p = ctx.resolve(path, must_exist=True)
    rel = ctx.rel(p)
    if p.is_dir() or p.suffix != ".py":
        raise ToolError(f"{rel} is not a .py file")
    if p.name == "__main__.py" and (p.parent / "__init__.py").is_file():
        return [ctx.tests().interpreter, "-m", rel.rsplit("/", 1)[0].replace("/", ".")]
    return [ctx.tests().interpreter, rel]


@tool(scenarios=RUN_TASKS, side_effects=[SideEffect.CODE_EXECUTION])
def run_python_file(ctx: ToolContext, path: str, args: list[str] = [], stdin: str | None = None,  # noqa: B006
                    timeout_s: float = 30.0, expected_output: str | None = None) -> str:
    """Run a Python file with args and optional stdin; returns exit code, stdout and stderr.

    With expected_output, stdout is compared with it as it arrives and the run is stopped
    as soon as it differs; the result says whether the output matched.
    """
    limit = max(0.1, min(timeout_s, ctx.timeout_s))
    res = run_entry_point(ctx, path, args=args, stdin=stdin, timeout_s=limit, expected_output=expected_output)
    if res.timed_out:
        head = f"timed out after {limit:g}s; the process and its children were killed"
    elif res.stopped_early:
        head = f"stopped after {res.duration_s:.2f}s: its output differs from the expected output"
    else:
        head = f"exit code {res.exit_code} ({res.duration_s:.2f}s)"
    if expected_output is not None:
        difference = first_difference(res.stdout, expected_output)
        head += "\nexpected output: " + ("matches" if difference is None else f"differs at {difference}")
    return f"{head}\nstdout:\n{res.stdout.rstrip() or '(empty)'}\nstderr:\n{res.stderr.rstrip() or '(empty)'}"


def run_entry_point(ctx: ToolContext, path: str, *, args: Sequence[str] = (), stdin: str | None = None,
                    timeout_s: float = 30.0, expected_output: str | None = None) -> ProcessResult:
    """Run a repo's .py file (see :func:`python_argv`) with the repo on PYTHONPATH.

    Args:
        timeout_s: seconds; the process group is killed past it.
        expected_output: when given, stdout is read unbuffered and compared as it arrives;
            the process group is killed at the first difference (``stopped_early``).

    Raises:
        ToolError: a bad path, or the run could not start or was cancelled.
    """
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(ctx.root), os.environ.get("PYTHONPATH")]))}
    stop = None
    if expected_output is not None:  # compare as it is printed: unbuffered, or a pipe holds it back
        env["PYTHONUNBUFFERED"] = "1"
        stop = lambda out: diverges(out, expected_output)  # noqa: E731
    with snapshot.noted(ctx, by=f"running {path}"):  # what it writes in the repo is journaled
        return ctx.run([*python_argv(ctx, path), *args], timeout_s=timeout_s, stdin=stdin, env=env,
                       stop_on_output=stop)


@tool(scenarios=CHECK_TASKS, side_effects=[SideEffect.CODE_EXECUTION])
def run_pytest(ctx: ToolContext, selection: list[str] | None = None) -> str:
    """Run pytest on all tests or on given files/test ids; returns passed/failed ids and tracebacks."""
    for item in selection or []:
        if item.startswith("-"):
            raise ToolError(f"{item!r} is an option; give test files or ids like tests/test_x.py::test_name")
        ctx.resolve(item.split("::", 1)[0], must_exist=True)
    return run_tests(ctx, selection).render()


def _scripts(ctx: ToolContext) -> list[str]:
    """Console scripts declared in pyproject.toml, setup.cfg and setup.py."""
    found = []
    pyproject = ctx.root / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(ctx.read_text("pyproject.toml"))
        except (tomllib.TOMLDecodeError, ToolError) as exc:
            return [f"pyproject.toml: cannot read it ({exc})"]
        tables = [("[project.scripts]", data.get("project", {}).get("scripts", {})),
                  ("[project.gui-scripts]", data.get("project", {}).get("gui-scripts", {})),
                  ("[tool.poetry.scripts]", data.get("tool", {}).get("poetry", {}).get("scripts", {}))]
        found += [f"console script {k} = {v} (pyproject.toml {where})"
                  for where, table in tables for k, v in table.items() if isinstance(v, str)]
    setup_cfg = ctx.root / "setup.cfg"
    if setup_cfg.is_file():
        cfg = configparser.ConfigParser()
        try:
            cfg.read_string(ctx.read_text("setup.cfg"))
            lines = cfg.get("options.entry_points", "console_scripts", fallback="").splitlines()
        except (configparser.Error, ToolError):
            lines = []
        found += [f"console script {line.strip()} (setup.cfg)" for line in lines if "=" in line]
    if (ctx.root / "setup.py").is_file():
        found += [f"console script {s} (setup.py)" for s in _setup_py_scripts(ctx)]
    return found


def _setup_py_scripts(ctx: ToolContext) -> list[str]:
    try:
        tree = parse_ast(ctx.read_text("setup.py"))
    except (SyntaxError, ToolError):
        return []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "entry_points":
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return []
            scripts = value.get("console_scripts", []) if isinstance(value, dict) else []
            return [s for s in ([scripts] if isinstance(scripts, str) else scripts) if isinstance(s, str)]
    return []


def _has_main_guard(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            sides = [node.test.left, *node.test.comparators]
            names = {s.id for s in sides if isinstance(s, ast.Name)}
            consts = {s.value for s in sides if isinstance(s, ast.Constant)}
            if "__name__" in names and "__main__" in consts:
                return True
    return False


@tool(scenarios=(T.CODE_VALIDATION, T.RESULT_VERIFICATION, T.CODE_ANALYSIS, T.EXPLANATION))
def discover_entry_points(ctx: ToolContext) -> str:
    """List how the project is run: console scripts, __main__.py, if __name__ == '__main__' modules."""
    found = _scripts(ctx)
    for p in ctx.walk(".", visible=True):
        if p.suffix != ".py":
            continue
        rel = ctx.rel(p)
        if p.name == "__main__.py":
            package = rel.rsplit("/", 1)[0].replace("/", ".") if "/" in rel else None
            found.append(f"package main: python -m {package} ({rel})" if package else f"main module: python {rel}")
            continue
        try:
            text = ctx.read_text(rel)
            if "__main__" in text and _has_main_guard(parse_ast(text)):
                found.append(f"main guard: python {rel}")
        except (ToolError, SyntaxError, ValueError):
            continue
    return "\n".join(found) if found else "no entry points found (no console scripts, __main__.py or __main__ guards)"
