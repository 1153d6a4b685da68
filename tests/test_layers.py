"""Package imports run one way: no codur package imports a package that imports it back.

Every import counts, the lazy ones inside functions too (they are cycles waiting for
the day someone hoists them to the top of the file).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "codur"


def unit(module: str) -> str:
    """codur.graph.execution.patch -> codur.graph; codur.commands.app -> codur.commands."""
    return ".".join(module.split(".")[:2])


def package_imports() -> dict[str, dict[str, list[str]]]:
    """{importing unit: {imported unit: [importing modules]}} over every module of codur."""
    edges: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path in PACKAGE.rglob("*.py"):
        if "_runtime" in path.parts:  # files run inside the user's test process, not imported by codur
            continue
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        if module == "codur":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                if name.startswith("codur.") and unit(name) != unit(module):
                    edges[unit(module)][unit(name)].append(module)
    return edges


def test_no_package_imports_a_package_that_imports_it_back():
    edges = package_imports()
    cycles = sorted(f"{a} -> {b} ({edges[a][b][0]}) and back ({edges[b][a][0]})"
                    for a in edges for b in edges[a] if a < b and a in edges.get(b, {}))
    assert cycles == []


def test_the_layers_are_the_documented_ones():
    edges = package_imports()
    assert "codur.engine" not in edges["codur.graph"]  # the graph never imports the engine
    assert set(edges["codur.core"]) <= {"codur.config"}  # core is the bottom layer
    assert "codur.tools" not in edges["codur.rlm"]  # rlm uses codur.sandbox, tools hosts the RLM tool
    assert "codur.mutation" not in edges["codur.validate"]  # the validator judges any fixer's candidates
    assert not set(edges["codur.mutation"]) & {"codur.patch", "codur.graph"}  # operators know no pipeline
    engine_to_graph = {m for m in edges["codur.engine"].get("codur.graph", [])}
    assert engine_to_graph == {"codur.engine.local"}  # one place builds a run


def _modules() -> dict[str, ast.Module]:
    """codur's modules by dotted name (the files run inside the user's test process included)."""
    return {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"):
            ast.parse(p.read_text(encoding="utf-8")) for p in PACKAGE.rglob("*.py")}


def _imported(node: ast.AST, modules: dict) -> list[str]:
    """The modules an import statement loads: ``from codur.llm import policy`` is codur.llm.policy."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                for a in node.names]
    return []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan 1972)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            if component:
                cycles.append(sorted([v, *component]))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return cycles


def test_no_module_imports_a_module_that_imports_it_back():
    """No import cycle between codur's modules, however long."""
    modules = _modules()
    graph = {name: {m for n in ast.walk(tree) for m in _imported(n, modules) if m in modules and m != name}
             for name, tree in modules.items()}
    assert _cycles(graph) == []
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]  # the check finds one


def test_no_module_over_350_lines_and_no_function_over_80():
    """Issue 39's structure: what one reads at once stays small."""
    long_modules = sorted(str(p.relative_to(PACKAGE.parent)) for p in PACKAGE.rglob("*.py")
                          if len(p.read_text(encoding="utf-8").splitlines()) > 350)
    long_functions = sorted(f"{name}.{n.name} ({n.end_lineno - n.lineno + 1} lines)"
                            for name, tree in _modules().items() for n in ast.walk(tree)
                            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                            and n.end_lineno - n.lineno + 1 > 80)
    assert (long_modules, long_functions) == ([], [])
